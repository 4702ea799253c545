/// A JSON value, serialized exactly as JavaScript's `JSON.stringify` would write it.
///
/// Numbers are JavaScript numbers: one `Double` case, printed as `Number.prototype.toString`
/// prints them, so integers have no `.0` (`3`, not `3.0`), `-0` prints as `0`, and NaN and
/// the infinities become `null`. Like JavaScript, integers beyond 2^53 lose precision.
///
/// Objects are ``JSONObject``s, which keep their keys in insertion order.
///
/// Every literal works: `let v: JSONValue = ["a": 1, "b": [true, nil, "x", 2.5]]`.
public enum JSONValue: Hashable, Sendable {
    /// A string.
    case string(String)
    /// A number: a JavaScript Number, that is an IEEE 754 double.
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// An array.
    case array([JSONValue])
    /// An object with ordered keys.
    case object(JSONObject)

    /// The value as JSON text, as `JSON.stringify(value)` gives it.
    public func jsonString() -> String {
        String(decoding: jsonBytes(), as: UTF8.self)
    }

    /// The value as UTF-8 JSON bytes, as `Buffer.from(JSON.stringify(value))` gives them.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as JSON text.
    public var description: String {
        jsonString()
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string literal is a `.string`.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// An integer literal is a `.number`.
    public init(integerLiteral value: Int) {
        self = .number(Double(value))
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A floating-point literal is a `.number`.
    public init(floatLiteral value: Double) {
        self = .number(value)
    }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// `true` and `false` are `.bool`.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// `nil` is JSON `null`. Where a `JSONValue?` is expected, `nil` means "absent"
    /// instead; write `.null` there to store a JSON `null`.
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array literal is an `.array`.
    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// A dictionary literal is an `.object` whose keys keep the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements {
            object[key] = value
        }
        self = .object(object)
    }
}
