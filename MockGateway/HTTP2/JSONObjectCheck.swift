import APNSupport
import APNWire
import APNWire

/// Whether a payload is one JSON object (RFC 8259, UTF-8), checked in one pass without
/// building anything: the gateway needs the verdict, not the value, for every request.
///
/// Strict as Apple's parser is taken to be: no comments, trailing commas, byte order mark
/// or bare control characters; strings must be valid UTF-8. Nesting is tracked in a bit
/// stack (one bit a level: object or array), so depth costs no allocation up to 64 levels
/// and 1 bit a level beyond.
package struct JSONObjectCheck {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0

    /// Whether `payload` is a JSON object, with optional whitespace around it.
    package static func isObject(_ payload: [UInt8]) -> Bool {
        payload.withUnsafeBufferPointer { buffer in
            var check = JSONObjectCheck(bytes: buffer)
            return check.document()
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The containers open around the current position: bit set for an object. Depth 64
    /// and beyond spill into `deeper`.
    private struct Nesting {
        var bits: UInt64 = 0
        var depth = 0
        var deeper: [Bool] = []

        mutating func push(object: Bool) {
            if depth < 64 {
                bits = bits << 1 | (object ? 1 : 0)
            } else {
                deeper.append(object)
            }
            depth += 1
        }

        /// Closes the innermost container; `true` when it was an object.
        mutating func pop() -> Bool {
            depth -= 1
            if depth >= 64 { return deeper.removeLast() }
            defer { bits >>= 1 }
            return bits & 1 == 1
        }

        var innermostIsObject: Bool {
            depth > 64 ? deeper.last! : bits & 1 == 1
        }
    }

    /// Where the reading is between tokens.
    private enum Position {
        /// Right after `{` or `[`: a member, or the closing bracket.
        case opened
        /// After a `,`: a member.
        case member
        /// After a value or a closed container: `,`, a closing bracket, or the end.
        case afterValue
    }

    /// What a value's first bytes were.
    private enum ValueStart {
        case invalid
        /// A whole string, number or literal.
        case scalar
        /// The opening bracket of an object (`true`) or array (`false`).
        case opened(object: Bool)
    }

    private mutating func document() -> Bool {
        skipWhitespace()
        guard peek() == UInt8(ascii: "{") else { return false }
        offset += 1
        var nesting = Nesting()
        nesting.push(object: true)
        var position = Position.opened
        while true {
            skipWhitespace()
            switch position {
            case .opened, .member:
                guard let byte = peek() else { return false }
                if position == .opened && byte == closingBracket(nesting) {
                    offset += 1
                    _ = nesting.pop()
                    position = .afterValue
                    continue
                }
                if nesting.innermostIsObject {
                    guard byte == UInt8(ascii: "\""), string() else { return false }
                    skipWhitespace()
                    guard peek() == UInt8(ascii: ":") else { return false }
                    offset += 1
                    skipWhitespace()
                }
                switch value() {
                case .invalid: return false
                case .scalar: position = .afterValue
                case .opened(let object):
                    nesting.push(object: object)
                    position = .opened
                }
            case .afterValue:
                guard nesting.depth > 0 else { return offset == bytes.count }
                switch peek() {
                case UInt8(ascii: ","):
                    offset += 1
                    position = .member
                case closingBracket(nesting):
                    offset += 1
                    _ = nesting.pop()
                default:
                    return false
                }
            }
        }
    }

    private func closingBracket(_ nesting: Nesting) -> UInt8 {
        nesting.innermostIsObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
    }

    /// Consumes one scalar value, or the opening bracket of a container.
    private mutating func value() -> ValueStart {
        guard let byte = peek() else { return .invalid }
        let complete: Bool
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            offset += 1
            return .opened(object: byte == UInt8(ascii: "{"))
        case UInt8(ascii: "\""): complete = string()
        case UInt8(ascii: "t"): complete = literal("true")
        case UInt8(ascii: "f"): complete = literal("false")
        case UInt8(ascii: "n"): complete = literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): complete = number()
        default: complete = false
        }
        return complete ? .scalar : .invalid
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count else { return false }
        for index in 0..<count where bytes[offset + index] != word.utf8Start[index] {
            return false
        }
        offset += count
        return true
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() -> Bool {
        if peek() == UInt8(ascii: "-") { offset += 1 }
        guard let first = peek(), isDigit(first) else { return false }
        offset += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            offset += 1
            guard requireDigits() else { return false }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            guard requireDigits() else { return false }
        }
        return true
    }

    /// A string from its opening quote: escapes checked, no control characters, UTF-8
    /// sequences well formed (no overlongs, surrogates or values above U+10FFFF).
    private mutating func string() -> Bool {
        offset += 1
        while true {
            // Printable ASCII other than `"` and `\` — most of a payload's text — in a tight
            // loop on a local index, without an optional a byte.
            var index = Self.plainASCIIWords(in: bytes, from: offset)
            while index < bytes.count {
                let byte = bytes[index]
                guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { break }
                index += 1
            }
            offset = index
            guard let byte = peek() else { return false }
            offset += 1
            switch byte {
            case UInt8(ascii: "\""): return true
            case UInt8(ascii: "\\"):
                guard let escaped = peek() else { return false }
                offset += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    guard bytes.count - offset >= 4 else { return false }
                    for _ in 0..<4 {
                        guard hexValue(bytes[offset]) != nil else { return false }
                        offset += 1
                    }
                default: return false
                }
            case 0..<0x20: return false
            case 0x20..<0x80: continue
            default: guard multibyteSequence(lead: byte) else { return false }
            }
        }
    }

    /// Where the run of whole eight-byte words of printable ASCII other than `"` and `\`
    /// starting at `start` ends: each word is judged at once (no byte below 0x20 or above
    /// 0x7F, none equal to either character), the bytes after it one by one by the caller.
    private static func plainASCIIWords(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let buffer = UnsafeRawBufferPointer(bytes)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = ones &* UInt64(UInt8(ascii: "\"")), backslashes = ones &* UInt64(UInt8(ascii: "\\"))
        var index = start
        while index + 8 <= buffer.count {
            let word = buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let control = (word &- ones &* 0x20) & ~word
            let quote = ((word ^ quotes) &- ones) & ~(word ^ quotes)
            let backslash = ((word ^ backslashes) &- ones) & ~(word ^ backslashes)
            guard (word | control | quote | backslash) & highs == 0 else { break }
            index += 8
        }
        return index
    }

    /// The continuation bytes of a UTF-8 sequence whose lead byte was just consumed.
    private mutating func multibyteSequence(lead: UInt8) -> Bool {
        guard let (length, second) = UTF8Check.sequence(startingWith: lead) else { return false }
        for index in 1..<length {
            guard let byte = peek() else { return false }
            let range = index == 1 ? second : 0x80...0xBF
            guard range.contains(byte) else { return false }
            offset += 1
        }
        return true
    }

    private mutating func requireDigits() -> Bool {
        guard let byte = peek(), isDigit(byte) else { return false }
        skipDigits()
        return true
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { offset += 1 }
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
    }

    private func peek() -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
