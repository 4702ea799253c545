import APN
import Testing

/// A notification built by some setters and the exact JSON node-apn 1.7.8 (or, for keys
/// Apple added later, the documented order) produces for it.
struct Golden: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: String
    let build: @Sendable () throws -> Notification

    init(_ name: String, _ expected: String, _ build: @escaping @Sendable () throws -> Notification) {
        self.name = name
        self.expected = expected
        self.build = build
    }

    var testDescription: String { name }
}
