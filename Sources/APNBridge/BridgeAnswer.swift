package import APNWire

/// What became of one forwarded notification upstream, as the bridge's driver reports it
/// to ``BridgeSession/answered(_:_:)``: Apple's HTTP/2 answer already read in the binary
/// protocol's terms.
package enum BridgeAnswer: Hashable, Sendable {
    /// Apple accepted it (HTTP 200).
    case accepted
    /// The token is no longer active (HTTP 410). Apple's binary gateway accepted such a
    /// notification silently and told the feedback service: so does the bridge
    /// (``BridgeAction/queueFeedback(token:since:)``). `since` is in UNIX seconds: Apple's
    /// `timestamp` (milliseconds) divided by 1000, or the answer's time when it gave none.
    case unregistered(since: Int64)
    /// Apple refused it; the status is the binary one the client will see, from
    /// ``status(forReason:)``.
    case refused(StatusCode)
    /// The bridge itself could not send it: its credentials or topic were refused, or the
    /// upstream stayed unavailable after retries. Known not delivered, so the client is
    /// answered with status 10 (shutdown) and resending it is forwarded again.
    case bridgeFailure
    /// Its fate is unknown (a timeout, or the connection lost with the stream open). The
    /// binary client is told nothing, as Apple's gateway could not have told it anything
    /// either: it counts as accepted. It is never forwarded again, resent or not.
    case maybeDelivered

    /// Whether the binary client sees it as accepted: nothing is written for it.
    var isAcceptance: Bool {
        switch self {
        case .accepted, .unregistered, .maybeDelivered: true
        case .refused, .bridgeFailure: false
        }
    }

    /// How the resend record keeps this answer, or nil when it keeps nothing: a bridge
    /// failure was not delivered, so a resend of it must go out.
    var recorded: ResendRecord.Answer? {
        switch self {
        case .accepted, .unregistered: .accepted
        case .maybeDelivered: .maybeDelivered
        case .refused(let status): .refused(status)
        case .bridgeFailure: nil
        }
    }

    /// The binary status for Apple's HTTP/2 refusal `reason` (the `reason` string of its
    /// JSON body, e.g. `"BadDeviceToken"`): 8 (invalid token) for `BadDeviceToken`,
    /// `DeviceTokenNotForTopic` and `MissingDeviceToken`; 7 (invalid payload size) for
    /// `PayloadTooLarge`; 4 (missing payload) for `PayloadEmpty`; 1 (processing error) for
    /// every other reason, including ones Apple adds later.
    ///
    /// The binary table has no closer match for the rest, and 1 is what Apple's gateway
    /// sent for its own failures. The driver decides first what is not a refusal at all:
    /// 410 (``unregistered(since:)``), the bridge's own credential and topic failures
    /// (``bridgeFailure``).
    package static func status(forReason reason: String) -> StatusCode {
        switch reason {
        case "BadDeviceToken", "DeviceTokenNotForTopic", "MissingDeviceToken": .invalidToken
        case "PayloadTooLarge": .invalidPayloadSize
        case "PayloadEmpty": .missingPayload
        default: .processingError
        }
    }
}
