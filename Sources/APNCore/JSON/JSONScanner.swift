import APNSupport
/// The recursive-descent reader behind ``JSONParser``: one pass over the bytes, an offset
/// that only moves forward, and a depth counter checked before each nested value.
struct JSONScanner {
    private let bytes: [UInt8]
    private let maximumDepth: Int
    private var offset = 0
    private var depth = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// Space, tab, line feed and carriage return: JSON's only whitespace.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// One value with optional whitespace around it, and nothing else.
    mutating func document() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let result = try value()
        skipWhitespace()
        guard offset == bytes.count else {
            throw fail(.trailingData, "unexpected text after the value")
        }
        return result
    }

    // MARK: Values

    private mutating func value() throws(JSONParseError) -> JSONValue {
        guard offset < bytes.count else {
            throw fail(.unexpectedEnd, "expected a value")
        }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object(try object())
        case UInt8(ascii: "["): return .array(try array())
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail(.unexpectedByte, "expected a value")
        }
    }

    private mutating func object() throws(JSONParseError) -> JSONObject {
        try enterNested()
        defer { depth -= 1 }
        offset += 1
        var object = JSONObject()
        skipWhitespace()
        if try peek("object") == UInt8(ascii: "}") {
            offset += 1
            return object
        }
        while true {
            guard try peek("object") == UInt8(ascii: "\"") else {
                throw fail(.unexpectedByte, "expected a key in double quotes")
            }
            let keyOffset = offset
            let key = try string()
            skipWhitespace()
            guard try peek("object") == UInt8(ascii: ":") else {
                throw fail(.unexpectedByte, "expected ':' after a key")
            }
            offset += 1
            skipWhitespace()
            // One lookup: the value is stored, and a key already there is the error.
            guard object.updateValue(try value(), forKey: key) == nil else {
                throw JSONParseError(kind: .duplicateKey, offset: keyOffset, message: "the key \"\(key)\" appears twice")
            }
            skipWhitespace()
            switch try peek("object") {
            case UInt8(ascii: ","):
                offset += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                offset += 1
                return object
            default:
                throw fail(.unexpectedByte, "expected ',' or '}' after an object member")
            }
        }
    }

    private mutating func array() throws(JSONParseError) -> [JSONValue] {
        try enterNested()
        defer { depth -= 1 }
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek("array") == UInt8(ascii: "]") {
            offset += 1
            return elements
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            switch try peek("array") {
            case UInt8(ascii: ","):
                offset += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                offset += 1
                return elements
            default:
                throw fail(.unexpectedByte, "expected ',' or ']' after an array element")
            }
        }
    }

    private mutating func literal(_ word: String) throws(JSONParseError) {
        let start = offset
        for expected in word.utf8 {
            guard offset < bytes.count else {
                throw fail(.unexpectedEnd, "the text ends inside \(word)")
            }
            guard bytes[offset] == expected else {
                throw JSONParseError(kind: .invalidLiteral, offset: start, message: "expected \(word)")
            }
            offset += 1
        }
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, read as a Double.
    private mutating func number() throws(JSONParseError) -> Double {
        let start = offset
        if bytes[offset] == UInt8(ascii: "-") {
            offset += 1
        }
        guard offset < bytes.count, Self.isDigit(bytes[offset]) else {
            throw numberError("expected a digit")
        }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if offset < bytes.count, Self.isDigit(bytes[offset]) {
                throw numberError("leading zeros are not allowed")
            }
        } else {
            skipDigits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard offset < bytes.count, Self.isDigit(bytes[offset]) else {
                throw numberError("expected a digit after the decimal point")
            }
            skipDigits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard offset < bytes.count, Self.isDigit(bytes[offset]) else {
                throw numberError("expected a digit in the exponent")
            }
            skipDigits()
        }
        // The grammar above is what Double's parser reads; out-of-range magnitudes become
        // ±infinity or ±0, as JSON.parse makes them.
        guard let number = Double(String(decoding: bytes[start..<offset], as: UTF8.self)) else {
            throw JSONParseError(kind: .invalidNumber, offset: start, message: "not a number")
        }
        return number
    }

    private func numberError(_ message: String) -> JSONParseError {
        offset < bytes.count ? fail(.invalidNumber, message) : fail(.unexpectedEnd, "the text ends inside a number")
    }

    private mutating func skipDigits() {
        while offset < bytes.count, Self.isDigit(bytes[offset]) {
            offset += 1
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: Strings

    /// A quoted string: escapes decoded, raw bytes checked to be well-formed UTF-8.
    private mutating func string() throws(JSONParseError) -> String {
        offset += 1
        var utf8: [UInt8] = []
        while true {
            guard offset < bytes.count else {
                throw fail(.unexpectedEnd, "the text ends inside a string")
            }
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &utf8)
            case 0x00..<0x20:
                throw fail(.controlCharacter, "a control character in a string must be escaped")
            case 0x20..<0x80:
                utf8.append(byte)
                offset += 1
            default:
                let length = try UTF8Check.sequenceLength(in: bytes, at: offset)
                utf8.append(contentsOf: bytes[offset..<offset + length])
                offset += length
            }
        }
    }

    /// A backslash escape, appended as UTF-8.
    private mutating func escape(into utf8: inout [UInt8]) throws(JSONParseError) {
        let start = offset
        offset += 1
        guard offset < bytes.count else {
            throw fail(.unexpectedEnd, "the text ends inside an escape")
        }
        let simple: UInt8?
        switch bytes[offset] {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default:
            throw JSONParseError(kind: .invalidEscape, offset: start, message: "unknown escape")
        }
        offset += 1
        if let simple {
            utf8.append(simple)
            return
        }
        let unit = try hex4(escapeStart: start)
        var scalarValue = UInt32(unit)
        switch unit {
        case 0xD800...0xDBFF:
            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else {
                throw JSONParseError(kind: .loneSurrogate, offset: start, message: "a high surrogate without a low one")
            }
            let lowStart = offset
            offset += 2
            let low = try hex4(escapeStart: lowStart)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw JSONParseError(kind: .loneSurrogate, offset: start, message: "a high surrogate without a low one")
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        case 0xDC00...0xDFFF:
            throw JSONParseError(kind: .loneSurrogate, offset: start, message: "a low surrogate without a high one")
        default:
            break
        }
        // Surrogates are excluded above, so every remaining value is a scalar.
        utf8.append(contentsOf: Unicode.UTF8.encode(Unicode.Scalar(scalarValue)!)!)
    }

    /// Four hex digits after `\u`.
    private mutating func hex4(escapeStart: Int) throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard offset < bytes.count else {
                throw fail(.unexpectedEnd, "the text ends inside a \\u escape")
            }
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw JSONParseError(kind: .invalidEscape, offset: escapeStart, message: "\\u needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }

    // MARK: Helpers

    private mutating func enterNested() throws(JSONParseError) {
        depth += 1
        guard depth <= maximumDepth else {
            depth -= 1
            throw fail(.tooDeep, "nested deeper than \(maximumDepth) arrays and objects")
        }
    }

    /// The current byte; the text ending here is an error inside `container`.
    private func peek(_ container: String) throws(JSONParseError) -> UInt8 {
        guard offset < bytes.count else {
            throw fail(.unexpectedEnd, "the text ends inside an \(container)")
        }
        return bytes[offset]
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count, Self.isWhitespace(bytes[offset]) {
            offset += 1
        }
    }

    private func fail(_ kind: JSONParseError.Kind, _ message: String) -> JSONParseError {
        JSONParseError(kind: kind, offset: offset, message: message)
    }
}
