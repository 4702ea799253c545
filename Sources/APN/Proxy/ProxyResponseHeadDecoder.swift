/// Reads a proxy's answer to `CONNECT` from bytes in any chunking, pure: the status line
/// (`HTTP/1.0` or `HTTP/1.1`, a three-digit status, a reason), the fields, then the empty
/// line that ends the head. Lines end with CRLF (a bare LF is taken too, RFC 9112 §2.2).
///
/// A hostile proxy cannot grow it: the head is bounded by ``limit`` (checked before each
/// byte is kept), and bytes that cannot begin an HTTP answer fail at once, not at the limit.
/// After the head it reads nothing: what follows belongs to the tunnel, and ``feed(_:)``
/// says how many of the chunk's bytes that is.
struct ProxyResponseHeadDecoder: Sendable {
    /// The largest head taken by default: an answer to `CONNECT` is a few lines.
    static let defaultLimit = 16 * 1024

    /// Why the bytes are no answer to `CONNECT`.
    enum Failure: Error, Sendable, Hashable {
        /// The head passed ``limit`` bytes without ending.
        case tooLarge(limit: Int)
        /// The bytes are not an HTTP status line (shown printable and cut short).
        case notHTTP(String)
        /// A line of the head is not a `name: value` field (shown as ``notHTTP(_:)``).
        case badField(String)
    }

    /// What one ``feed(_:)`` gave.
    enum Step: Sendable, Hashable {
        /// The head has not ended: feed more.
        case needMore
        /// The head ended; the last `trailing` bytes of the chunk fed come after it.
        case complete(ProxyResponseHead, trailing: Int)
        case failed(Failure)
    }

    let limit: Int
    private var bytes: [UInt8] = []
    private var lineStart = 0
    private var statusLine: (text: String, status: Int)?
    private var fields: [ProxyResponseHead.Field] = []
    private var finished: Step?

    init(limit: Int = Self.defaultLimit) {
        self.limit = limit
    }

    /// Takes the next bytes read; once it has answered `complete` or `failed`, it answers
    /// the same again.
    mutating func feed(_ chunk: some Collection<UInt8>) -> Step {
        if let finished { return finished }
        var used = 0
        for byte in chunk {
            used += 1
            guard bytes.count < limit else { return finish(.failed(.tooLarge(limit: limit))) }
            bytes.append(byte)
            if statusLine == nil, bytes.count <= Self.prefix.count, bytes.last != Self.prefix[bytes.count - 1] {
                return finish(.failed(.notHTTP(Self.printable(bytes[...]))))
            }
            guard byte == UInt8(ascii: "\n") else { continue }
            var line = bytes[lineStart..<(bytes.count - 1)]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            lineStart = bytes.count
            if statusLine == nil {
                guard let parsed = Self.parseStatusLine(line) else { return finish(.failed(.notHTTP(Self.printable(line)))) }
                statusLine = parsed
            } else if line.isEmpty {
                let head = ProxyResponseHead(statusLine: statusLine!.text, status: statusLine!.status, fields: fields)
                return finish(.complete(head, trailing: chunk.count - used))
            } else {
                guard let field = Self.parseField(line) else { return finish(.failed(.badField(Self.printable(line)))) }
                fields.append(field)
            }
        }
        return .needMore
    }

    private mutating func finish(_ step: Step) -> Step {
        finished = step
        bytes = []
        return step
    }

    private static let prefix = Array("HTTP/1.".utf8)

    /// `HTTP/1.x SSS[ reason]`: the line as text and the status.
    private static func parseStatusLine(_ line: ArraySlice<UInt8>) -> (text: String, status: Int)? {
        let bytes = Array(line)
        guard bytes.count >= 12, bytes[0..<7].elementsEqual(prefix), bytes[7] == UInt8(ascii: "0") || bytes[7] == UInt8(ascii: "1"),
            bytes[8] == UInt8(ascii: " ")
        else { return nil }
        let digits = bytes[9..<12]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            bytes.count == 12 || bytes[12] == UInt8(ascii: " "),
            bytes[12...].allSatisfy({ $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }),
            let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let status = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (text, status)
    }

    /// `name: value`, the name a token, the value without surrounding spaces.
    private static func parseField(_ line: ArraySlice<UInt8>) -> ProxyResponseHead.Field? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return nil }
        let name = line[..<colon]
        guard name.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else { return nil }
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        var value = line[(colon + 1)...].drop(while: isSpace)
        while let last = value.last, isSpace(last) { value = value.dropLast() }
        guard value.allSatisfy({ $0 == UInt8(ascii: "\t") || $0 >= 0x20 && $0 != 0x7F }) else { return nil }
        return ProxyResponseHead.Field(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    /// Up to 80 bytes as text a log can hold: printable ASCII as is, the rest `\xNN`.
    static func printable(_ bytes: ArraySlice<UInt8>) -> String {
        var text = ""
        for byte in bytes.prefix(80) {
            if byte >= 0x20 && byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = Array("0123456789abcdef")
                text += "\\x\(digits[Int(byte >> 4)])\(digits[Int(byte & 0x0F)])"
            }
        }
        return bytes.count > 80 ? text + "…" : text
    }
}
