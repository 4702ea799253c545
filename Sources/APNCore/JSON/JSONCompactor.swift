/// Removes the whitespace between the tokens of valid JSON text and nothing else: keys,
/// strings (with their escapes as written) and numbers keep their exact bytes.
enum JSONCompactor {
    /// `bytes` (valid JSON) without insignificant whitespace.
    static func compact(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                result.append(byte)
            } else if !JSONScanner.isWhitespace(byte) {
                inString = byte == UInt8(ascii: "\"")
                result.append(byte)
            }
        }
        return result
    }
}
