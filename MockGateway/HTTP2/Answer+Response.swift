import APN
import APNHTTP2
import APNTLS
import Foundation

extension Answer {
    /// The response as Apple writes it: `:status` and `apns-id` (and `apns-unique-id` when
    /// given); for a refusal also `content-type: application/json` and the body
    /// `{"reason":"…"}`, with `"timestamp":<ms since 1970>` for a 410.
    func response(uniqueID: String?) -> (headers: [HTTP2Header], body: [UInt8]) {
        guard let refusal else {
            // The common answer, in one allocation.
            guard let uniqueID else { return ([Self.ok, HTTP2Header("apns-id", apnsID)], []) }
            return ([Self.ok, HTTP2Header("apns-id", apnsID), HTTP2Header("apns-unique-id", uniqueID)], [])
        }
        var headers = [
            HTTP2Header(":status", String(refusal.status)), HTTP2Header("content-type", "application/json"),
            HTTP2Header("apns-id", apnsID),
        ]
        if let uniqueID { headers.append(HTTP2Header("apns-unique-id", uniqueID)) }
        var json = #"{"reason":"# + JSONText.quoted(refusal.reason.rawValue)
        if let timestamp {
            json += #","timestamp":"# + String(Int64((timestamp.timeIntervalSince1970 * 1000).rounded(.down)))
        }
        return (headers, Array((json + "}").utf8))
    }

    private static let ok = HTTP2Header(":status", "200")
}
