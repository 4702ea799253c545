/// Reads JSON text (RFC 8259, UTF-8) into ``JSONValue``s, keeping each object's keys in the
/// order the text gives them.
///
/// Strict: no comments, trailing commas, single quotes, `NaN` or byte order mark, and no
/// object that names a key twice. Input is checked against ``maximumSize`` before anything
/// is read, and nesting against ``maximumDepth`` as it is read, so hostile input costs at
/// most linear time and bounded stack. Every failure is a ``JSONParseError`` with the byte
/// offset where it was found.
///
/// Numbers become JavaScript numbers (`Double`), as `JSON.parse` makes them: `1.0` reads as
/// `1`, and integers beyond 2^53 lose precision. Where the exact text matters, as in a
/// payload to be sent as given, ``Notification/init(payloadJSON:parser:)-(String,_)`` keeps the
/// original bytes.
///
/// ```swift
/// let object = try JSONParser().parseObject(#"{"b":1,"a":{"x":[true,null]}}"#)
/// object.keys  // ["b", "a"]
/// ```
public struct JSONParser: Sendable {
    /// The default ``maximumDepth``: 64 nested arrays or objects, far more than a payload
    /// needs and far less than would strain a thread's stack.
    public static let defaultMaximumDepth = 64
    /// The default ``maximumSize``: 1 MiB, 256 times the largest payload the gateway takes.
    public static let defaultMaximumSize = 1 << 20

    /// The deepest nesting of arrays and objects accepted; the top-level value is depth 1.
    public var maximumDepth: Int
    /// The longest text accepted, in UTF-8 bytes.
    public var maximumSize: Int

    /// A parser with the given limits.
    public init(maximumDepth: Int = defaultMaximumDepth, maximumSize: Int = defaultMaximumSize) {
        self.maximumDepth = maximumDepth
        self.maximumSize = maximumSize
    }

    /// Parses one JSON value, with optional whitespace around it.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses one JSON value from UTF-8 bytes, with optional whitespace around it.
    public func parse(bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        guard bytes.count <= maximumSize else {
            throw JSONParseError(
                kind: .tooLarge, offset: maximumSize,
                message: "the text is \(bytes.count) bytes, over the limit of \(maximumSize)")
        }
        var scanner = JSONScanner(bytes: bytes, maximumDepth: maximumDepth)
        return try scanner.document()
    }

    /// Parses JSON text that must be an object, such as a notification payload.
    ///
    /// - Throws: ``JSONParseError/Kind/notAnObject`` (at the value's first byte) for valid
    ///   JSON that is not an object, or any other kind for malformed text.
    public func parseObject(_ text: String) throws(JSONParseError) -> JSONObject {
        try parseObject(bytes: Array(text.utf8))
    }

    /// Parses UTF-8 bytes that must hold a JSON object.
    public func parseObject(bytes: [UInt8]) throws(JSONParseError) -> JSONObject {
        let value = try parse(bytes: bytes)
        guard case .object(let object) = value else {
            let start = bytes.firstIndex { !JSONScanner.isWhitespace($0) } ?? 0
            throw JSONParseError(kind: .notAnObject, offset: start, message: "expected an object, got \(Self.kindName(value))")
        }
        return object
    }

    private static func kindName(_ value: JSONValue) -> String {
        switch value {
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
