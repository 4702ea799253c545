
/// Well-formed UTF-8 (Unicode Table 3-7), one sequence at a time, with the offset of the
/// first byte that breaks it. APN's JSON scanner and the mocks' record lines
/// and payload checks all read the same table (``sequence(startingWith:)``).
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
}
