import APNHTTP2
import APNSupport
import APNWire

/// The whole answer to a broadcast or channel management request, laid out when it is
/// judged: `:status`, `apns-request-id` (always: Apple echoes it or makes one), the
/// operation's own fields (`apns-channel-id`, `apns-unique-id`) and a JSON body when there is
/// one. A refusal is `{"reason":"…"}` with `content-type: application/json`, as Apple's
/// broadcast error page shows it (no `timestamp`). A class: an ``Answer`` carries one
/// reference, not the fields.
final class BroadcastResponse: Sendable {
    let status: Int
    /// The refusal's reason; `nil` when accepted.
    let reason: ProviderReason?
    /// Every field, `:status` first.
    let headers: [HTTP2Header]
    let body: [UInt8]

    /// An accepted request's answer: `status`, `apns-request-id`, `extra` fields, and `json`
    /// as the body (then with `content-type: application/json`).
    init(status: Int, requestID: String, extra: [HTTP2Header] = [], json: String? = nil) {
        self.status = status
        reason = nil
        var headers = [HTTP2Header(":status", String(status))]
        if json != nil { headers.append(HTTP2Header("content-type", "application/json")) }
        headers.append(Self.requestID(requestID))
        self.headers = headers + extra
        body = json.map { Array($0.utf8) } ?? []
    }

    /// A refusal's answer.
    init(refusal: HTTP2MockGateway.Refusal, requestID: String) {
        status = refusal.status
        reason = refusal.reason
        headers = [
            HTTP2Header(":status", String(refusal.status)), HTTP2Header("content-type", "application/json"),
            Self.requestID(requestID),
        ]
        body = Array((#"{"reason":"# + JSONStringEscaping.quoted(refusal.reason.rawValue) + "}").utf8)
    }

    /// `apns-request-id`, one value per response: kept out of the HPACK tables.
    private static func requestID(_ value: String) -> HTTP2Header {
        HTTP2Header("apns-request-id", value, isIndexable: false)
    }
}
