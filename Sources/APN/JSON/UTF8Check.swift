import APNWire

/// Well-formed UTF-8 (Unicode Table 3-7), one sequence at a time, with the offset of the
/// first byte that breaks it. The MockGateway's record lines check payloads by the same table
/// (``sequence(startingWith:)``).
package enum UTF8Check {
    /// The length of the sequence `lead` starts and the range its second byte must lie in
    /// (Table 3-7: this excludes overlong forms, surrogates and code points beyond U+10FFFF;
    /// later bytes are 0x80–0xBF); `nil` for a byte that never starts a multi-byte sequence.
    package static func sequence(startingWith lead: UInt8) -> (length: Int, second: ClosedRange<UInt8>)? {
        switch lead {
        case 0xC2...0xDF: (2, 0x80...0xBF)
        case 0xE0: (3, 0xA0...0xBF)
        case 0xED: (3, 0x80...0x9F)
        case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
        case 0xF0: (4, 0x90...0xBF)
        case 0xF1...0xF3: (4, 0x80...0xBF)
        case 0xF4: (4, 0x80...0x8F)
        default: nil
        }
    }

    /// The length of the well-formed sequence starting at `offset` (a byte ≥ 0x80).
    ///
    /// - Throws: ``JSONParseError/Kind/invalidUTF8`` at the first byte that cannot be there:
    ///   a lead byte that never starts a sequence (0x80–0xC1, 0xF5–0xFF), or a continuation
    ///   outside the range its lead allows (overlong forms, surrogates, beyond U+10FFFF), or
    ///   ``JSONParseError/Kind/unexpectedEnd`` when the text stops inside the sequence.
    static func sequenceLength(in bytes: [UInt8], at offset: Int) throws(JSONParseError) -> Int {
        let lead = bytes[offset]
        guard let (length, secondRange) = sequence(startingWith: lead) else {
            throw JSONParseError(kind: .invalidUTF8, offset: offset, message: "byte 0x\(hex(lead)) cannot start a UTF-8 sequence")
        }
        for position in offset + 1..<offset + length {
            guard position < bytes.count else {
                throw JSONParseError(kind: .unexpectedEnd, offset: position, message: "the text ends inside a UTF-8 sequence")
            }
            let range = position == offset + 1 ? secondRange : 0x80...0xBF
            guard range.contains(bytes[position]) else {
                throw JSONParseError(
                    kind: .invalidUTF8, offset: position,
                    message: "byte 0x\(hex(bytes[position])) cannot follow 0x\(hex(lead)) in UTF-8")
            }
        }
        return length
    }

    private static func hex(_ byte: UInt8) -> String {
        hexString([byte]).uppercased()
    }
}
