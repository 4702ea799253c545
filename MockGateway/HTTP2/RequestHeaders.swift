import APNHTTP2

/// The header fields of one request that the gateway reads, picked out in one pass, and
/// whether any of them — or any other `apns-*` field, or `authorization` — came twice
/// (Apple's `DuplicateHeaders`). nghttp2 has already refused requests with missing or
/// repeated pseudo-headers.
struct RequestHeaders {
    var method: String?
    var path: String?
    var authorization: String?
    var apnsID: String?
    var expiration: String?
    var priority: String?
    var topic: String?
    var collapseID: String?
    var pushType: String?
    private(set) var hasDuplicates = false

    init(_ headers: [HTTP2Header]) {
        // Other apns-* names seen, to catch their repeats; allocated only if one comes.
        var others: [String] = []
        for header in headers {
            // The fields every request carries first; the one name longer than a small
            // string (compared the slow way) last.
            switch header.name {
            case ":path": path = header.value
            case ":method": method = header.value
            case ":scheme", ":authority": continue
            case "apns-topic": if Self.store(header.value, in: &topic) { hasDuplicates = true }
            case "apns-push-type": if Self.store(header.value, in: &pushType) { hasDuplicates = true }
            case "apns-priority": if Self.store(header.value, in: &priority) { hasDuplicates = true }
            case "apns-expiration": if Self.store(header.value, in: &expiration) { hasDuplicates = true }
            case "authorization": if Self.store(header.value, in: &authorization) { hasDuplicates = true }
            case "apns-id": if Self.store(header.value, in: &apnsID) { hasDuplicates = true }
            case "apns-collapse-id": if Self.store(header.value, in: &collapseID) { hasDuplicates = true }
            case let name where name.utf8.starts(with: "apns-".utf8):
                if others.contains(name) { hasDuplicates = true } else { others.append(name) }
            default: break
            }
        }
    }

    /// Stores `value` in `field` unless it already holds one; `true` for a repeat.
    private static func store(_ value: String, in field: inout String?) -> Bool {
        guard field == nil else { return true }
        field = value
        return false
    }
}
