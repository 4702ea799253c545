internal import CNGHTTP2

/// Turns `[HTTP2Header]` into the `nghttp2_nv` array nghttp2's submit functions take (and
/// copy), checking each field as HTTP/2 requires. The buffers are kept from one call to the
/// next, so a request costs no allocation here once they have grown, and a field whose
/// bytes are those of the previous call's field at the same position is not checked again
/// (requests repeat most of their fields).
struct HeaderFields {
    /// This call's field bytes, name then value, field after field (the buffer may be
    /// longer: `lengths` says how much is used).
    private var bytes: [UInt8] = []
    private var lengths: [(name: Int, value: Int)] = []
    /// The previous call's, all checked.
    private var previousBytes: [UInt8] = []
    private var previousLengths: [(name: Int, value: Int)] = []
    private var fields: [nghttp2_nv] = []

    /// Calls `body` with `headers` as nghttp2 fields; throws an ``HTTP2Error/Kind/invalidHeader``
    /// error, without calling `body`, for a name or value HTTP/2 cannot carry.
    mutating func withFields<Value>(
        _ headers: [HTTP2Header], _ body: (UnsafePointer<nghttp2_nv>, Int) -> Value
    ) throws(HTTP2Error) -> Value {
        swap(&bytes, &previousBytes)
        swap(&lengths, &previousLengths)
        lengths.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        var total = 1 // one spare byte: an empty buffer has no base address to point names into
        for header in headers {
            let length = (name: header.name.utf8.count, value: header.value.utf8.count)
            lengths.append(length)
            total += length.name + length.value
        }
        if bytes.count < total {
            bytes = Array(repeating: 0, count: max(total, bytes.count * 2))
        }
        var invalid: Int?
        let value: Value? = bytes.withUnsafeMutableBufferPointer { storage in
            previousBytes.withUnsafeBufferPointer { previous in
                var cursor = storage.baseAddress!
                var previousCursor = previous.baseAddress
                for (index, length) in lengths.enumerated() {
                    let name = cursor
                    let value = cursor + length.name
                    cursor = value + length.value
                    Self.copy(headers[index].name, to: name)
                    Self.copy(headers[index].value, to: value)
                    var checked = false
                    if index < previousLengths.count, let previousField = previousCursor {
                        let previousLength = previousLengths[index]
                        checked = previousLength == length
                            && bytesEqual(previousField, name, count: length.name + length.value)
                        previousCursor = previousField + previousLength.name + previousLength.value
                    }
                    if !checked && (nghttp2_check_header_name(name, length.name) == 0
                        || nghttp2_check_header_value_rfc9113(value, length.value) == 0) {
                        invalid = index
                        return nil
                    }
                    fields.append(nghttp2_nv(
                        name: name, value: value, namelen: length.name, valuelen: length.value,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                }
                return fields.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
            }
        }
        guard let value, invalid == nil else {
            // Nothing of this call counts as checked.
            lengths.removeAll(keepingCapacity: true)
            let name = invalid.map { headers[$0].name } ?? ""
            throw HTTP2Error(.invalidHeader, "the header field \"\(name)\" (names are lowercase tokens; values have no CR, LF, NUL or surrounding whitespace)")
        }
        return value
    }

    /// Copies the UTF-8 of `text` to `destination` (one memcpy for a native string).
    private static func copy(_ text: String, to destination: UnsafeMutablePointer<UInt8>) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable {
            if let source = $0.baseAddress {
                destination.update(from: source, count: $0.count)
            }
        }
        if copied == nil {
            _ = UnsafeMutableBufferPointer(start: destination, count: text.utf8.count).initialize(from: text.utf8)
        }
    }
}
