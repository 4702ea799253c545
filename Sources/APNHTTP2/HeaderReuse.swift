/// Strings for received header fields, reusing those of the previous message when the
/// bytes are the same. Requests to one server repeat most fields (`:method`, `:authority`,
/// `authorization`, `apns-topic`, …) in the same order, so comparing with the field at the
/// same position of the last message finds them; a reused string costs a retain instead of
/// an allocation and a UTF-8 check.
struct HeaderReuse {
    /// The fields of the last complete message.
    var previous: [HTTP2Header] = []

    /// The field at `index` of a header block with these bytes.
    func field(at index: Int, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> HTTP2Header {
        guard index < previous.count else {
            return HTTP2Header(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        let known = previous[index]
        let sameName = Self.equal(known.name, name)
        if sameName && Self.equal(known.value, value) {
            return known
        }
        return HTTP2Header(sameName ? known.name : String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// Whether `field` has exactly these name and value bytes.
    static func matches(_ field: HTTP2Header, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        equal(field.name, name) && equal(field.value, value)
    }

    /// Whether `string` is encoded as exactly `bytes`.
    private static func equal(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        string.utf8.withContiguousStorageIfAvailable { stored in
            stored.count == bytes.count && (bytes.isEmpty || bytesEqual(stored.baseAddress!, bytes.baseAddress!, count: bytes.count))
        } ?? false
    }
}
