internal import CNGHTTP2

/// Turns `[HTTP2Header]` into the `nghttp2_nv` array nghttp2's submit functions take (and
/// copy), checking each field as HTTP/2 requires. The byte and field buffers are kept from
/// one call to the next, so a request costs no allocation here once they have grown.
struct HeaderFields {
    private var bytes: [UInt8] = []
    private var lengths: [(name: Int, value: Int)] = []
    private var fields: [nghttp2_nv] = []

    /// Calls `body` with `headers` as nghttp2 fields; throws an ``HTTP2Error/Kind/invalidHeader``
    /// error, without calling `body`, for a name or value HTTP/2 cannot carry.
    mutating func withFields<Value>(
        _ headers: [HTTP2Header], _ body: (UnsafePointer<nghttp2_nv>, Int) -> Value
    ) throws(HTTP2Error) -> Value {
        bytes.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        for header in headers {
            let start = bytes.count
            append(header.name)
            let nameEnd = bytes.count
            append(header.value)
            lengths.append((nameEnd - start, bytes.count - nameEnd))
        }
        // One spare byte: an empty buffer has no base address to point names into.
        bytes.append(0)
        var invalid: Int?
        let value: Value? = bytes.withUnsafeMutableBufferPointer { storage in
            var cursor = storage.baseAddress!
            for (index, length) in lengths.enumerated() {
                let name = cursor
                let value = cursor + length.name
                cursor = value + length.value
                if nghttp2_check_header_name(name, length.name) == 0
                    || nghttp2_check_header_value_rfc9113(value, length.value) == 0 {
                    invalid = index
                    return nil
                }
                fields.append(nghttp2_nv(
                    name: name, value: value, namelen: length.name, valuelen: length.value,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return fields.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
        guard let value, invalid == nil else {
            let name = invalid.map { headers[$0].name } ?? ""
            throw HTTP2Error(.invalidHeader, "the header field \"\(name)\" (names are lowercase tokens; values have no CR, LF, NUL or surrounding whitespace)")
        }
        return value
    }

    /// Appends `text`'s UTF-8 bytes with one copy (a native string's are contiguous), not
    /// byte by byte through the generic sequence path, which cost a request 2 % of a
    /// client's time.
    private mutating func append(_ text: String) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: text.utf8) }
    }
}
