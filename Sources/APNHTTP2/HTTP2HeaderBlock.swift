internal import CNGHTTP2

/// Header fields checked once and laid out as nghttp2 fields once, for messages that repeat
/// them: a notification's requests to many devices differ only in `:path`, which
/// ``HTTP2Session/submitRequest(_:path:pathIsValid:appending:body:)`` fills in for each; a gateway's
/// answers differ only in `apns-id`, which ``HTTP2Session/submitResponse(streamID:_:values:body:)``
/// fills in. Submitting from a block copies no field and checks none again; only the values
/// filled in are checked.
///
/// Immutable once made, so one block is shared by every request that uses it, on any thread.
package final class HTTP2HeaderBlock: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a constant, and the memory the fields
    // point into is written only in init and freed only in deinit; nothing mutates it.

    /// The fields, as given.
    package let headers: [HTTP2Header]
    /// The fields' name and value bytes, one after another; the fields point into them.
    private let bytes: UnsafeMutableRawBufferPointer
    /// nghttp2's view of the fields, `count` of them.
    let fields: UnsafeMutablePointer<nghttp2_nv>
    /// How many fields.
    package var count: Int { headers.count }
    /// The indices of the fields whose values each message fills in (``init(_:varying:)``).
    let varyingIndices: [Int]

    /// Checks `headers` and lays them out; the fields named in `varying` (by default
    /// `:path`, where present) are those whose values each message fills in, in their order
    /// in `headers`. Their values here are placeholders (an empty one will do).
    ///
    /// - Throws: ``HTTP2Error/Kind/invalidHeader`` for a name or value HTTP/2 cannot carry
    ///   (names are lowercase tokens; values have no CR, LF, NUL or surrounding white space).
    package init(_ headers: [HTTP2Header], varying: [String] = [":path"]) throws(HTTP2Error) {
        self.headers = headers
        let total = headers.reduce(1) { $0 + $1.name.utf8.count + $1.value.utf8.count }  // 1: never a zero-size allocation
        bytes = .allocate(byteCount: total, alignment: 1)
        fields = .allocate(capacity: max(1, headers.count))
        var cursor = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var invalid: String?
        for (index, header) in headers.enumerated() {
            let name = cursor
            cursor = Self.copyUTF8(of: header.name, to: cursor)
            let value = cursor
            cursor = Self.copyUTF8(of: header.value, to: cursor)
            let nameLength = value - name, valueLength = cursor - value
            if invalid == nil
                && (nghttp2_check_header_name(name, nameLength) == 0
                    || nghttp2_check_header_value_rfc9113(value, valueLength) == 0)
            {
                invalid = header.name
            }
            (fields + index).initialize(
                to: nghttp2_nv(
                    name: name, value: value, namelen: nameLength, valuelen: valueLength,
                    flags: UInt8(header.isIndexable ? NGHTTP2_NV_FLAG_NONE.rawValue : NGHTTP2_NV_FLAG_NO_INDEX.rawValue)))
        }
        // An array, not a set: one or two names, compared rather than hashed (a set hashed
        // every field's name, on every template).
        varyingIndices = headers.indices.filter { varying.contains(headers[$0].name) }
        if let invalid {
            throw HTTP2Error(
                .invalidHeader,
                "the header field \"\(invalid)\" (names are lowercase tokens; values have no CR, LF, NUL or surrounding whitespace)")
        }
    }

    deinit {
        fields.deinitialize(count: headers.count)
        fields.deallocate()
        bytes.deallocate()
    }

    /// Copies the UTF-8 of `text` to `destination`; where the copy ends.
    static func copyUTF8(of text: String, to destination: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var text = text
        return text.withUTF8 { source in
            if let base = source.baseAddress { destination.update(from: base, count: source.count) }
            return destination + source.count
        }
    }

    /// Whether `bytes` can be a header value (RFC 9113 §8.2.1): no control character but
    /// HTAB (so no NUL, CR or LF), no DEL, and no space or HTAB at either end. Stricter than
    /// the RFC by the other control characters, as nghttp2's own check is.
    static func isValidValue(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return true }
        if first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09 { return false }
        // Eight bytes at a time: a word with no byte below 0x20 and none equal to 0x7F is
        // valid as it stands; any other word (HTAB is below 0x20 and allowed) is looked at
        // byte by byte. A path of 74 bytes costs ten steps instead of seventy-four.
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let below = (word &- ones &* 0x20) & ~word & highs
            let deletes = ((word ^ (ones &* 0x7F)) &- ones) & ~(word ^ (ones &* 0x7F)) & highs
            if below | deletes != 0 {
                for byte in bytes[offset..<offset + 8] where !isValidValueByte(byte) { return false }
            }
            offset += 8
        }
        for byte in bytes[offset...] where !isValidValueByte(byte) { return false }
        return true
    }

    private static func isValidValueByte(_ byte: UInt8) -> Bool {
        (byte >= 0x20 || byte == 0x09) && byte != 0x7F
    }
}
