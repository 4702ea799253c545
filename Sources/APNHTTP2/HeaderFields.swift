internal import APNSupport
internal import CNGHTTP2

/// Turns `[HTTP2Header]` into the `nghttp2_nv` array nghttp2's submit functions take (and
/// copy), checking each field as HTTP/2 requires. One buffer holds the fields' bytes from
/// one call to the next: requests repeat most of their fields (a notification's requests
/// differ only in `:path`), so a field equal to the previous call's at the same position
/// keeps its bytes where they are — neither copied nor checked again — as long as the
/// fields before it kept their lengths. A request costs no allocation here once the
/// buffers have grown.
struct HeaderFields {
    /// The fields' bytes, name then value, field after field (the buffer may be longer:
    /// `lengths` says how much is used). All checked, unless a call is in progress.
    private var bytes: [UInt8] = []
    /// The length of each field's name and value in `bytes`.
    private var lengths: [(name: Int, value: Int)] = []
    /// The fields `bytes` holds: the last call's, all valid.
    private var written: [HTTP2Header] = []
    private var fields: [nghttp2_nv] = []

    /// Calls `body` with `headers` as nghttp2 fields; throws an ``HTTP2Error/Kind/invalidHeader``
    /// error, without calling `body`, for a name or value HTTP/2 cannot carry.
    mutating func withFields<Value>(
        _ headers: [HTTP2Header], _ body: (UnsafePointer<nghttp2_nv>, Int) -> Value
    ) throws(HTTP2Error) -> Value {
        // Where the bytes stay in place: the fields up to the first whose lengths differ.
        var unchangedLayout = 0
        var total = 1  // one spare byte: an empty buffer has no base address to point names into
        for (index, header) in headers.enumerated() {
            let length = (name: header.name.utf8.count, value: header.value.utf8.count)
            if index == unchangedLayout && index < lengths.count && lengths[index] == length { unchangedLayout += 1 }
            total += length.name + length.value
        }
        if bytes.count < total {
            bytes.append(contentsOf: repeatElement(0, count: max(total, bytes.count * 2) - bytes.count))  // keeps the fields
        }
        let previous = written
        // Until this call has checked every field, only the unchanged prefix counts as written.
        written = []
        lengths.removeSubrange(unchangedLayout...)
        fields.removeAll(keepingCapacity: true)
        var invalid: Int?
        let value: Value? = bytes.withUnsafeMutableBufferPointer { storage in
            var cursor = storage.baseAddress!
            for (index, header) in headers.enumerated() {
                let name = cursor
                let length = (name: header.name.utf8.count, value: header.value.utf8.count)
                let value = cursor + length.name
                cursor = value + length.value
                let inPlace = index < unchangedLayout && Self.sameBytes(header, previous[index])
                if !inPlace {
                    Self.copy(header.name, to: name)
                    Self.copy(header.value, to: value)
                    if nghttp2_check_header_name(name, length.name) == 0
                        || nghttp2_check_header_value_rfc9113(value, length.value) == 0 {
                        invalid = index
                        return nil
                    }
                }
                if index >= unchangedLayout { lengths.append(length) }
                fields.append(nghttp2_nv(
                    name: name, value: value, namelen: length.name, valuelen: length.value,
                    flags: UInt8(header.isIndexable ? NGHTTP2_NV_FLAG_NONE.rawValue : NGHTTP2_NV_FLAG_NO_INDEX.rawValue)))
            }
            return fields.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
        guard let value, invalid == nil else {
            // Fields may have been half overwritten: nothing of the buffer counts as checked.
            lengths.removeAll(keepingCapacity: true)
            let name = invalid.map { headers[$0].name } ?? ""
            throw HTTP2Error(.invalidHeader, "the header field \"\(name)\" (names are lowercase tokens; values have no CR, LF, NUL or surrounding whitespace)")
        }
        written = headers
        return value
    }

    /// Whether `a` and `b` have the same name and value bytes — at once when they share
    /// their storage, as a notification's requests do. Bytes, not `String` `==`, which
    /// would call canonically equivalent but different bytes equal.
    private static func sameBytes(_ a: HTTP2Header, _ b: HTTP2Header) -> Bool {
        sameBytes(a.name, b.name) && sameBytes(a.value, b.value)
    }

    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.utf8.withContiguousStorageIfAvailable { first in
            b.utf8.withContiguousStorageIfAvailable { second in
                first.count == second.count
                    && (first.baseAddress == second.baseAddress || first.isEmpty
                        || bytesEqual(first.baseAddress!, second.baseAddress!, count: first.count))
            } ?? false
        } ?? false
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
