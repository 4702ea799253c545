import APNSupport

extension JSONStringEscaping {
    /// How many bytes the escaped form of `scalar` takes in `encoding`: the same rules as
    /// ``appendEscaped(_:to:)``, so that trimming an alert and writing it agree.
    static func escapedLength(of scalar: Unicode.Scalar, in encoding: PayloadEncoding) -> Int {
        let asciiCharacters: Int
        switch scalar.value {
        case 0x22, 0x5C, 0x08, 0x09, 0x0A, 0x0C, 0x0D:
            asciiCharacters = 2
        case 0x00..<0x20:
            asciiCharacters = 6
        default:
            switch encoding {
            case .utf8: return scalar.utf8.count
            case .ucs2: return scalar.utf16.count * 2
            }
        }
        switch encoding {
        case .utf8: return asciiCharacters
        case .ucs2: return asciiCharacters * 2
        }
    }
}
