@_spi(APNBridge) package import APN
import Foundation

extension BridgeAnswer {
    /// The answer for what the provider said of one forwarded notification, at
    /// `nowSeconds` (UNIX seconds, read only for a 410 without a timestamp: not a clock
    /// read for every answer).
    ///
    /// | provider's answer | bridge answer |
    /// |---|---|
    /// | status 200 | `accepted` |
    /// | an error with Apple's status (`rejected`, `retriesExhausted`) | ``classify(status:reason:timestampMilliseconds:nowSeconds:)`` |
    /// | `invalidNotification` (the request could not be formed, e.g. its priority) | `refused(.processingError)` |
    /// | `authentication`, `connectionFailed` never sent | `bridgeFailure` |
    /// | `shutDown`, `cancelled`: withdrawn unsent / after it was written | `bridgeFailure` / `maybeDelivered` |
    /// | `timedOut`, `protocolError`, `connectionFailed` after a send | `maybeDelivered` |
    ///
    /// A notification that was never sent is known undelivered, so the client is told
    /// status 10 and its resend goes out; one whose request went out may have been
    /// delivered, so it counts as accepted and is never forwarded again.
    package init(_ response: borrowing ProviderResponse, nowSeconds: @autoclosure () -> Int64) {
        guard let error = response.error else {
            self = response.status == 200 ? .accepted : .maybeDelivered
            return
        }
        if let status = error.status {
            self = Self.classify(
                status: status, reason: error.reason?.rawValue,
                timestampMilliseconds: error.timestamp.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) },
                nowSeconds: nowSeconds())
            return
        }
        switch error.code {
        case .invalidNotification: self = .refused(.processingError)
        case .authentication: self = .bridgeFailure
        case .connectionFailed: self = response.attempts == 0 ? .bridgeFailure : .maybeDelivered
        // Withdrawn (the bridge's stop): a request retried after a 429 was answered, not
        // delivered; only one on the wire may have been.
        case .shutDown, .cancelled: self = error.mayHaveBeenDelivered ? .maybeDelivered : .bridgeFailure
        default: self = response.attempts == 0 ? .bridgeFailure : .maybeDelivered
        }
    }
}
