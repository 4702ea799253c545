import APNWire
import APNSupport

extension UTF8Check {
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
