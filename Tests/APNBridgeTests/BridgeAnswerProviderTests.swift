@_spi(APNBridge) import APN
@_spi(APNBridge) import APNCore
import APNBridge
import APNWire
import Foundation
import Testing

/// A provider's response in the bridge's terms: what decides between "never sent, forward
/// a resend again" (bridge failure) and "may have arrived, never again" (maybe delivered).
@Suite("Bridge: provider responses as answers")
struct BridgeAnswerProviderTests {
    static let device = Device(unvalidated: [UInt8](repeating: 0xAB, count: 32))

    static func response(_ error: ProviderError?, status: Int? = nil, attempts: Int = 1) -> ProviderResponse {
        ProviderResponse(device: device, error: error, status: status, apnsID: nil, uniqueID: nil, attempts: attempts)
    }

    static let rows: [(name: String, response: ProviderResponse, answer: BridgeAnswer)] = [
        ("200", response(nil, status: 200), .accepted),
        ("400 BadDeviceToken", response(ProviderError(code: .rejected, message: "", status: 400, reason: .badDeviceToken)), .refused(.invalidToken)),
        ("410 with Apple's time", response(ProviderError(
            code: .rejected, message: "", status: 410, reason: .unregistered, timestamp: Date(timeIntervalSince1970: 1_700_000_000.4))),
         .unregistered(since: 1_700_000_000)),
        ("403 InvalidProviderToken", response(ProviderError(code: .rejected, message: "", status: 403, reason: .invalidProviderToken)), .bridgeFailure),
        ("503 after the retries", response(ProviderError(code: .retriesExhausted, message: "", status: 503, reason: .serviceUnavailable), attempts: 4), .bridgeFailure),
        ("429 after the retries", response(ProviderError(code: .retriesExhausted, message: "", status: 429, reason: .tooManyRequests), attempts: 4), .refused(.processingError)),
        ("no connection, never sent", response(ProviderError(code: .connectionFailed, message: ""), attempts: 0), .bridgeFailure),
        ("connection lost with the stream open", response(ProviderError(code: .connectionFailed, message: ""), attempts: 1), .maybeDelivered),
        ("timed out after it was written", response(ProviderError(code: .timedOut, message: ""), attempts: 1), .maybeDelivered),
        ("timed out before it was written", response(ProviderError(code: .timedOut, message: ""), attempts: 0), .bridgeFailure),
        ("the .p8 key unreadable", response(ProviderError(code: .authentication, message: ""), attempts: 0), .bridgeFailure),
        ("the provider closed", response(ProviderError(code: .shutDown, message: ""), attempts: 0), .bridgeFailure),
        ("withdrawn at a stop, after a 429 (answered, not delivered)", response(ProviderError(code: .shutDown, message: ""), attempts: 1), .bridgeFailure),
        ("withdrawn at a stop while on the wire", response(ProviderError(code: .shutDown, message: "", mayHaveBeenDelivered: true), attempts: 1), .maybeDelivered),
        ("cancelled before it was written", response(ProviderError(code: .cancelled, message: ""), attempts: 0), .bridgeFailure),
        ("cannot be sent as it is", response(ProviderError(code: .invalidNotification, message: ""), attempts: 0), .refused(.processingError)),
    ]

    @Test("each kind of response", arguments: rows.indices)
    func mapped(_ index: Int) {
        let row = Self.rows[index]
        #expect(BridgeAnswer(row.response, nowSeconds: 5) == row.answer, "\(row.name)")
    }
}
