import APN

/// A strict RFC 8259 JSON parser for tests: it proves the library's output is valid JSON
/// and reads it back into a ``JSONValue`` (objects keep the document's key order).
struct TestJSONParser {
    struct Failure: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    private let bytes: [UInt8]
    private var offset = 0

    static func parse(_ text: String) throws -> JSONValue {
        var parser = TestJSONParser(bytes: Array(text.utf8))
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.offset == parser.bytes.count else {
            throw parser.failure("trailing bytes")
        }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func failure(_ reason: String) -> Failure {
        Failure(offset: offset, reason: reason)
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) {
            offset += 1
        }
    }

    private mutating func expect(_ literal: String) throws {
        for byte in literal.utf8 {
            guard offset < bytes.count, bytes[offset] == byte else {
                throw failure("expected \(literal)")
            }
            offset += 1
        }
    }

    private mutating func parseValue() throws -> JSONValue {
        skipWhitespace()
        guard offset < bytes.count else { throw failure("unexpected end") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return .number(try parseNumber())
        }
    }

    private mutating func parseObject() throws -> JSONObject {
        offset += 1
        var object = JSONObject()
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return object
        }
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw failure("expected a key")
            }
            let key = try parseString()
            skipWhitespace()
            try expect(":")
            object[key] = try parseValue()
            skipWhitespace()
            guard offset < bytes.count else { throw failure("unterminated object") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            try expect("}")
            return object
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard offset < bytes.count else { throw failure("unterminated array") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            try expect("]")
            return .array(elements)
        }
    }

    private mutating func parseHex4() throws -> UInt16 {
        guard offset + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("bad hex digit")
            }
            value = value << 4 | UInt16(digit)
            offset += 1
        }
        return value
    }

    private mutating func parseString() throws -> String {
        offset += 1
        var units: [UInt16] = []
        var raw: [UInt8] = []
        func flushRaw() {
            units.append(contentsOf: String(decoding: raw, as: UTF8.self).utf16)
            raw.removeAll()
        }
        while true {
            guard offset < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                flushRaw()
                guard let text = String(validating: units, as: UTF16.self) else {
                    throw failure("lone surrogate in string")
                }
                return text
            case UInt8(ascii: "\\"):
                flushRaw()
                guard offset < bytes.count else { throw failure("dangling backslash") }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "\""): units.append(0x22)
                case UInt8(ascii: "\\"): units.append(0x5C)
                case UInt8(ascii: "/"): units.append(0x2F)
                case UInt8(ascii: "b"): units.append(0x08)
                case UInt8(ascii: "f"): units.append(0x0C)
                case UInt8(ascii: "n"): units.append(0x0A)
                case UInt8(ascii: "r"): units.append(0x0D)
                case UInt8(ascii: "t"): units.append(0x09)
                case UInt8(ascii: "u"): units.append(try parseHex4())
                default: throw failure("unknown escape")
                }
            case 0x00..<0x20:
                throw failure("raw control character in string")
            default:
                raw.append(byte)
            }
        }
    }

    private mutating func parseNumber() throws -> Double {
        let start = offset
        while offset < bytes.count,
            "+-0123456789.eE".utf8.contains(bytes[offset])
        {
            offset += 1
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        guard !text.isEmpty, let value = Double(text), text.first != "+" else {
            throw failure("bad number \(text)")
        }
        return value
    }
}
