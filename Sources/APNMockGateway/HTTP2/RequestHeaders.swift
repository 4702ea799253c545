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
            // By length and second byte first, which tell every name read here apart: one
            // string comparison per field, and an equal one (cheap: equal small strings
            // compare in one step, unequal ones take the slow path).
            let name = header.name
            var bytes = name.utf8.makeIterator()
            let first = bytes.next() ?? 0
            let second = bytes.next() ?? 0
            switch (name.utf8.count, second) {
            case (5, UInt8(ascii: "p")) where name == ":path": path = header.value
            case (7, UInt8(ascii: "m")) where name == ":method": method = header.value
            case (7, UInt8(ascii: "s")) where name == ":scheme", (10, UInt8(ascii: "a")) where name == ":authority": continue
            case (7, UInt8(ascii: "p")) where name == "apns-id": if Self.store(header.value, in: &apnsID) { hasDuplicates = true }
            case (10, UInt8(ascii: "p")) where name == "apns-topic": if Self.store(header.value, in: &topic) { hasDuplicates = true }
            case (13, UInt8(ascii: "u")) where name == "authorization":
                if Self.store(header.value, in: &authorization) { hasDuplicates = true }
            case (13, UInt8(ascii: "p")) where name == "apns-priority":
                if Self.store(header.value, in: &priority) { hasDuplicates = true }
            case (14, UInt8(ascii: "p")) where name == "apns-push-type":
                if Self.store(header.value, in: &pushType) { hasDuplicates = true }
            case (15, UInt8(ascii: "p")) where name == "apns-expiration":
                if Self.store(header.value, in: &expiration) { hasDuplicates = true }
            case (16, UInt8(ascii: "p")) where name == "apns-collapse-id":
                if Self.store(header.value, in: &collapseID) { hasDuplicates = true }
            default:
                if first == UInt8(ascii: "a") && second == UInt8(ascii: "p") && name.utf8.starts(with: "apns-".utf8) {
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
