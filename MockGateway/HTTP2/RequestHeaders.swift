import APNHTTP2
import APNSupport

/// The header fields of one request that the gateway reads, picked out of its bytes in one
/// pass, and whether any of them — or any other `apns-*` field, or `authorization` — came
/// twice (Apple's `DuplicateHeaders`). nghttp2 has already refused requests with missing or
/// repeated pseudo-headers.
struct RequestHeaders {
    var method: String?
    var path: RequestPath?
    var authorization: String?
    var apnsID: String?
    var expiration: String?
    var priority: String?
    var topic: String?
    var collapseID: String?
    var pushType: String?
    /// `apns-channel-id` and `apns-request-id`: broadcast push and channel management only.
    var channelID: String?
    var requestID: String?
    private(set) var hasDuplicates = false

    /// The values of `fields` the gateway reads; `strings` hands back the previous request's
    /// string for a value with the same bytes (a connection's requests repeat all but `:path`).
    static func read(_ fields: HTTP2HeaderList, reusing strings: inout RequestFieldStrings) -> RequestHeaders {
        fields.withFieldCursor { cursor in
            var headers = RequestHeaders()
            // Other apns-* names seen, to catch their repeats; allocated only if one comes.
            var others: [String] = []
            var offset = cursor.offset
            while let (name, value) = cursor.next() {
                if headers.read(name: name, value: value, strings: &strings, others: &others) {
                    headers.path = RequestPath(in: fields, atByte: offset)
                }
                offset = cursor.offset
            }
            return headers
        }
    }

    /// Takes one field; `true` for `:path`, which the caller keeps where it lies (different
    /// in every request: no string). Names are told apart by length and second byte first,
    /// which tell every name read here apart; then one comparison of the bytes.
    private mutating func read(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, strings: inout RequestFieldStrings,
        others: inout [String]
    ) -> Bool {
        guard name.count >= 2 else { return false }
        switch (name.count, name[1]) {
        case (5, UInt8(ascii: "p")) where Self.is(name, ":path"):
            return true
        case (7, UInt8(ascii: "m")) where Self.is(name, ":method"):
            method = RequestFieldStrings.value(value, reusing: &strings.method)
        case (7, UInt8(ascii: "p")) where Self.is(name, "apns-id"):
            if Self.store(String(decoding: value, as: UTF8.self), in: &apnsID) { hasDuplicates = true }
        case (10, UInt8(ascii: "p")) where Self.is(name, "apns-topic"):
            if Self.store(RequestFieldStrings.value(value, reusing: &strings.topic), in: &topic) { hasDuplicates = true }
        case (13, UInt8(ascii: "u")) where Self.is(name, "authorization"):
            if Self.store(RequestFieldStrings.value(value, reusing: &strings.authorization), in: &authorization) { hasDuplicates = true }
        case (13, UInt8(ascii: "p")) where Self.is(name, "apns-priority"):
            if Self.store(RequestFieldStrings.value(value, reusing: &strings.priority), in: &priority) { hasDuplicates = true }
        case (14, UInt8(ascii: "p")) where Self.is(name, "apns-push-type"):
            if Self.store(RequestFieldStrings.value(value, reusing: &strings.pushType), in: &pushType) { hasDuplicates = true }
        case (15, UInt8(ascii: "p")) where Self.is(name, "apns-expiration"):
            if Self.store(RequestFieldStrings.value(value, reusing: &strings.expiration), in: &expiration) { hasDuplicates = true }
        case (15, UInt8(ascii: "p")) where Self.is(name, "apns-channel-id"):
            // Broadcast and channel requests only: after the device path's names.
            if Self.store(String(decoding: value, as: UTF8.self), in: &channelID) { hasDuplicates = true }
        case (15, UInt8(ascii: "p")) where Self.is(name, "apns-request-id"):
            if Self.store(String(decoding: value, as: UTF8.self), in: &requestID) { hasDuplicates = true }
        case (16, UInt8(ascii: "p")) where Self.is(name, "apns-collapse-id"):
            if Self.store(RequestFieldStrings.value(value, reusing: &strings.collapseID), in: &collapseID) { hasDuplicates = true }
        default:
            if name.count > 5 && name[0] == UInt8(ascii: "a") && name[1] == UInt8(ascii: "p") && Self.is(name.prefix(5), "apns-") {
                let other = String(decoding: name, as: UTF8.self)
                if others.contains(other) { hasDuplicates = true } else { others.append(other) }
            }
        }
        return false
    }

    /// Whether `bytes` are `name`'s.
    private static func `is`(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ name: StaticString) -> Bool {
        `is`(UnsafeBufferPointer(rebasing: bytes), name)
    }

    @inline(__always)
    private static func `is`(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        bytes.count == name.utf8CodeUnitCount && bytesEqual(bytes.baseAddress!, name.utf8Start, count: bytes.count)
    }

    /// Stores `value` in `field` unless it already holds one; `true` for a repeat.
    private static func store(_ value: String, in field: inout String?) -> Bool {
        guard field == nil else { return true }
        field = value
        return false
    }
}

/// The last values a connection's requests carried in the fields that repeat from request to
/// request, reused while the bytes stay the same: a retain instead of an allocation and a
/// UTF-8 check, and `==` against the string the last request kept (its provider token, say)
/// that ends at the storage comparison.
struct RequestFieldStrings {
    var method = ""
    var authorization = ""
    var topic = ""
    var priority = ""
    var pushType = ""
    var expiration = ""
    var collapseID = ""

    /// `bytes` as a string: `last` when it has these bytes, otherwise a new one, kept in `last`.
    static func value(_ bytes: UnsafeBufferPointer<UInt8>, reusing last: inout String) -> String {
        if !utf8Equals(last, bytes) { last = String(decoding: bytes, as: UTF8.self) }
        return last
    }
}
