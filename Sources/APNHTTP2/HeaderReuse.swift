internal import APNSupport

/// Strings for a client's received response fields, reusing those of the previous response
/// when the bytes are the same: one server's answers repeat most fields (`:status`,
/// `apns-id` of a retried request, …) in the same order, so comparing with the field at the
/// same position of the last response finds them; a reused string costs a retain instead of
/// an allocation and a UTF-8 check. (A server's requests stay bytes: ``HTTP2HeaderList``.)
struct HeaderReuse {
    /// The fields of the last complete message.
    var previous: [HTTP2Header] = []

    /// The field at `index` of a header block with these bytes.
    func field(at index: Int, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> HTTP2Header {
        guard index < previous.count else {
            return HTTP2Header(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        let known = previous[index]
        let sameName = utf8Equals(known.name, name)
        if sameName && utf8Equals(known.value, value) {
            return known
        }
        return HTTP2Header(sameName ? known.name : String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// Whether `field` has exactly these name and value bytes.
    static func matches(_ field: HTTP2Header, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        utf8Equals(field.name, name) && utf8Equals(field.value, value)
    }
}
