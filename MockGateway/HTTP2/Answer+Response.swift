import APNSupport
import APNWire
import APNHTTP2
import Foundation

extension Answer {
    /// The response as Apple writes it: `:status` and `apns-id` (and `apns-unique-id` when
    /// given); for a refusal also `content-type: application/json` and the body
    /// `{"reason":"…"}`, with `"timestamp":<ms since 1970>` for a 410.
    func response(uniqueID: AnswerID?) -> (headers: [HTTP2Header], body: [UInt8]) {
        guard let refusal else {
            // The common answer, in one allocation.
            guard let uniqueID else { return ([Self.ok, Self.id(apnsID.text)], []) }
            return ([Self.ok, Self.id(apnsID.text), Self.uniqueID(uniqueID.text)], [])
        }
        var headers = [
            HTTP2Header(":status", String(refusal.status)), HTTP2Header("content-type", "application/json"),
            Self.id(apnsID.text),
        ]
        if let uniqueID { headers.append(Self.uniqueID(uniqueID.text)) }
        var json = #"{"reason":"# + JSONStringEscaping.quoted(refusal.reason.rawValue)
        if let timestamp {
            json += #","timestamp":"# + String(Int64((timestamp.timeIntervalSince1970 * 1000).rounded(.down)))
        }
        return (headers, Array((json + "}").utf8))
    }

    private static let ok = HTTP2Header(":status", "200")

    /// The fields of an accepted answer (``response(uniqueID:)`` without a refusal), laid
    /// out once; each answer fills in its `apns-id`. Constant fields that are valid, so
    /// making the block cannot fail.
    static let accepted = try! HTTP2HeaderBlock([ok, id("")], varying: ["apns-id"])
    /// As ``accepted``, with `apns-unique-id` after `apns-id`.
    static let acceptedWithUniqueID = try! HTTP2HeaderBlock(
        [ok, id(""), uniqueID("")], varying: ["apns-id", "apns-unique-id"])

    /// `apns-id`: one value per response, so kept out of the HPACK tables (indexing each
    /// made the gateway search ~50 earlier ids in its table per response).
    private static func id(_ value: String) -> HTTP2Header {
        HTTP2Header("apns-id", value, isIndexable: false)
    }

    /// `apns-unique-id`, as ``id(_:)``.
    private static func uniqueID(_ value: String) -> HTTP2Header {
        HTTP2Header("apns-unique-id", value, isIndexable: false)
    }
}
