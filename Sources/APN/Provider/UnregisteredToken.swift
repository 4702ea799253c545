import Foundation

extension UnregisteredToken {
    /// The token of a 410 answer, or nil for any other response. `now`: its time when Apple
    /// gave no `timestamp`.
    /// `now` is read only for a 410 without one (most responses are 200s).
    init?(_ response: ProviderResponse, now: () -> Date) {
        guard let error = response.error, error.status == 410 else { return nil }
        self.init(device: response.device, timestamp: error.timestamp ?? now(), reason: error.reason)
    }
}
