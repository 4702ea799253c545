import APN

/// One line of a node-apn golden payload file (see Fixtures/golden/README.md): the payload
/// given to `new Notification(payload)`, the operations applied, and what node-apn made of
/// them. Read with ``TestJSONParser``, which keeps every object's key order: the payload's
/// order decides the output's.
struct GoldenCase: Sendable {
    /// An operation applied to the notification, in order.
    enum Operation: Sendable, CustomStringConvertible {
        /// `notification[property] = value`.
        case set(property: String, value: JSONValue)
        /// `notification[setter](arguments...)`.
        case call(setter: String, arguments: [JSONValue])
        /// `notification.trim(length)`; `nil` is `trim()` with no argument.
        case trim(length: Int?)

        var description: String {
            switch self {
            case .set(let property, let value): "set \(property) = \(value)"
            case .call(let setter, let arguments): "\(setter)(\(arguments.map(\.description).joined(separator: ", ")))"
            case .trim(let length): "trim(\(length.map(String.init) ?? ""))"
            }
        }
    }

    /// A line that is not a case in the documented format.
    struct FormatError: Error, CustomStringConvertible {
        let line: Int
        let reason: String
        var description: String { "line \(line): \(reason)" }
    }

    let id: Int
    /// The constructor's payload; `nil` for `null` (no payload).
    let payload: JSONObject?
    let operations: [Operation]
    /// `compile()` after all operations.
    let json: String
    /// The payload's length in bytes in the notification's encoding.
    let length: Int
    /// What each `trim` returned, in order.
    let trims: [Int]

    /// Decodes the case on line `line` (1-based, for messages).
    init(line text: String, number line: Int) throws(FormatError) {
        func fail(_ reason: String) -> FormatError { FormatError(line: line, reason: reason) }
        let value: JSONValue
        do {
            value = try TestJSONParser.parse(text)
        } catch {
            throw fail("\(error)")
        }
        guard case .object(let object) = value else { throw fail("not an object") }
        guard let id = Self.integer(object["id"]) else { throw fail("no integer id") }
        self.id = id
        switch object["payload"] {
        case .null?: payload = nil
        case .object(let payload)?: self.payload = payload
        default: throw fail("payload is neither an object nor null")
        }
        guard case .array(let operations)? = object["ops"] else { throw fail("no ops array") }
        self.operations = try operations.map { operation throws(FormatError) in
            guard let decoded = Self.operation(operation) else { throw fail("bad operation \(operation)") }
            return decoded
        }
        guard case .string(let json)? = object["json"] else { throw fail("no json string") }
        self.json = json
        guard let length = Self.integer(object["length"]) else { throw fail("no integer length") }
        self.length = length
        guard case .array(let trims)? = object["trims"] else { throw fail("no trims array") }
        self.trims = try trims.map { trim throws(FormatError) in
            guard let result = Self.integer(trim) else { throw fail("trim result \(trim) is not an integer") }
            return result
        }
        let trimCount = self.operations.count { if case .trim = $0 { true } else { false } }
        guard trimCount == self.trims.count else {
            throw fail("\(trimCount) trim operations but \(self.trims.count) results")
        }
    }

    private static func operation(_ value: JSONValue) -> Operation? {
        guard case .array(let parts) = value, case .string(let kind)? = parts.first else { return nil }
        switch kind {
        case "set":
            guard parts.count == 3, case .string(let property) = parts[1] else { return nil }
            return .set(property: property, value: parts[2])
        case "call":
            guard parts.count >= 2, case .string(let setter) = parts[1] else { return nil }
            return .call(setter: setter, arguments: Array(parts.dropFirst(2)))
        case "trim":
            guard parts.count == 2 else { return nil }
            if parts[1] == .null { return .trim(length: nil) }
            guard let length = integer(parts[1]) else { return nil }
            return .trim(length: length)
        default:
            return nil
        }
    }

    /// The value as an Int if it is a whole number.
    static func integer(_ value: JSONValue?) -> Int? {
        guard case .number(let number)? = value, let integer = Int(exactly: number) else { return nil }
        return integer
    }
}
