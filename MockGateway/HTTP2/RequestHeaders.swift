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
            // By length first: one string comparison per field instead of one per case
            // tried (a request has about ten fields; the switch on names alone made 34
            // comparisons a request).
            let name = header.name
            switch name.utf8.count {
            case 5 where name == ":path": path = header.value
            case 7 where name == ":method": method = header.value
            case 7 where name == ":scheme", 10 where name == ":authority": continue
            case 7 where name == "apns-id": if Self.store(header.value, in: &apnsID) { hasDuplicates = true }
            case 10 where name == "apns-topic": if Self.store(header.value, in: &topic) { hasDuplicates = true }
            case 13 where name == "authorization":
                if Self.store(header.value, in: &authorization) { hasDuplicates = true }
            case 13 where name == "apns-priority": if Self.store(header.value, in: &priority) { hasDuplicates = true }
            case 14 where name == "apns-push-type": if Self.store(header.value, in: &pushType) { hasDuplicates = true }
            case 15 where name == "apns-expiration":
                if Self.store(header.value, in: &expiration) { hasDuplicates = true }
            case 16 where name == "apns-collapse-id":
                if Self.store(header.value, in: &collapseID) { hasDuplicates = true }
            default:
                if name.utf8.starts(with: "apns-".utf8) {
                    if others.contains(name) { hasDuplicates = true } else { others.append(name) }
                }
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
