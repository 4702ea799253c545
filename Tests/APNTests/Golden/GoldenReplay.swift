import APN

/// Replays a ``GoldenCase`` through swift-apn's public `Notification` API.
///
/// Each node-apn property assignment or setter call becomes the Swift property or setter of
/// the same name. Two translations are deliberate (Fixtures/golden/README.md):
/// - `["trim", null]` is `trim(toLength: 2048)`: node-apn 1.7.8's default length, where
///   swift-apn's `trim()` defaults to the limit its default connection accepts (256).
/// - `contentAvailable` / `mutableContent` set to `1` or `0` are `true` / `false`, as node-apn
///   read them.
/// A value Swift's types cannot hold (a string badge, a number alert, …) is a JavaScript-only
/// case: ``Unsupported`` says which, and the case is skipped.
struct GoldenReplay {
    /// An operation with a JavaScript value that has no Swift counterpart.
    struct Unsupported: Error, CustomStringConvertible {
        let description: String
    }

    /// The notification after the operations.
    let notification: Notification
    /// What each trim returned.
    private(set) var trims: [Int] = []
    /// The payload each time node-apn compiled it: at the start of every trim (its
    /// `length()`), and at the end.
    private(set) var compiles: [NodeApsPersistence.Compile] = []

    /// node-apn 1.7.8's `trim()` length.
    static let nodeDefaultTrimLength = 2048

    /// Builds the notification and applies every operation.
    init(_ golden: GoldenCase) throws {
        notification = try golden.payload.map { try Notification(payload: $0) } ?? Notification()
        for operation in golden.operations {
            try apply(operation)
        }
        compiles.append(NodeApsPersistence.Compile(notification))
    }

    private mutating func apply(_ operation: GoldenCase.Operation) throws {
        switch operation {
        case .set(let property, let value):
            try set(property, value)
        case .call(let setter, let arguments):
            guard arguments.count == 1 else {
                throw Unsupported(description: "\(operation): one argument expected")
            }
            try call(setter, arguments[0])
        case .trim(let length):
            if length == 0 {
                throw Unsupported(description: "trim(0): node-apn reads 0 as no length (falsy)")
            }
            compiles.append(NodeApsPersistence.Compile(notification))
            trims.append(notification.trim(toLength: length ?? Self.nodeDefaultTrimLength))
        }
    }

    private func set(_ property: String, _ value: JSONValue) throws {
        let note = notification
        switch property {
        case "alert": note.alert = try Self.alert(value, property)
        case "badge": note.badge = try Self.integer(value, property)
        case "sound": note.sound = .named(try Self.string(value, property))
        case "contentAvailable", "newsstandAvailable": note.contentAvailable = try Self.flag(value, property)
        case "mutableContent": note.mutableContent = try Self.flag(value, property)
        case "urlArgs": note.urlArgs = try Self.strings(value, property)
        case "category": note.category = try Self.string(value, property)
        case "mdm": note.mdm = try Self.optional(value) { try Self.string($0, property) }
        case "truncateAtWordEnd": note.truncateAtWordEnd = try Self.flag(value, property)
        case "encoding":
            guard let encoding = PayloadEncoding(rawValue: try Self.string(value, property)) else {
                throw Unsupported(description: "encoding \(value)")
            }
            note.encoding = encoding
        default:
            throw Unsupported(description: "property \(property)")
        }
    }

    private func call(_ setter: String, _ value: JSONValue) throws {
        let note = notification
        switch setter {
        case "setAlertText": note.setAlertText(try Self.string(value, setter))
        case "setAlertTitle": note.setAlertTitle(try Self.string(value, setter))
        case "setAlertAction": note.setAlertAction(try Self.string(value, setter))
        case "setTitleLocKey": note.setTitleLocKey(try Self.string(value, setter))
        case "setTitleLocArgs": note.setTitleLocArgs(try Self.strings(value, setter))
        case "setActionLocKey": note.setActionLocKey(try Self.optional(value) { try Self.string($0, setter) })
        case "setLocKey": note.setLocKey(try Self.optional(value) { try Self.string($0, setter) })
        case "setLocArgs": note.setLocArgs(try Self.optional(value) { try Self.strings($0, setter) })
        case "setLaunchImage": note.setLaunchImage(try Self.optional(value) { try Self.string($0, setter) })
        case "setBadge": note.setBadge(try Self.integer(value, setter))
        case "setSound": note.setSound(.named(try Self.string(value, setter)))
        case "setContentAvailable": note.setContentAvailable(try Self.flag(value, setter))
        case "setNewsstandAvailable": note.setNewsstandAvailable(try Self.flag(value, setter))
        case "setMutableContent": note.setMutableContent(try Self.flag(value, setter))
        case "setUrlArgs": note.setUrlArgs(try Self.strings(value, setter))
        case "setCategory": note.setCategory(try Self.string(value, setter))
        case "setMDM": note.setMDM(try Self.optional(value) { try Self.string($0, setter) })
        default: throw Unsupported(description: "setter \(setter)")
        }
    }

    // MARK: JavaScript values to Swift types

    private static func unsupported(_ value: JSONValue, _ name: String) -> Unsupported {
        Unsupported(description: "\(name) = \(value)")
    }

    private static func string(_ value: JSONValue, _ name: String) throws -> String {
        guard case .string(let string) = value else { throw unsupported(value, name) }
        return string
    }

    private static func integer(_ value: JSONValue, _ name: String) throws -> Int {
        guard let integer = GoldenCase.integer(value) else { throw unsupported(value, name) }
        return integer
    }

    private static func flag(_ value: JSONValue, _ name: String) throws -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .number(1): return true
        case .number(0): return false
        default: throw unsupported(value, name)
        }
    }

    private static func strings(_ value: JSONValue, _ name: String) throws -> [String] {
        guard case .array(let elements) = value else { throw unsupported(value, name) }
        return try elements.map { try string($0, name) }
    }

    private static func optional<T>(_ value: JSONValue, _ body: (JSONValue) throws -> T) throws -> T? {
        value == .null ? nil : try body(value)
    }

    private static func alert(_ value: JSONValue, _ name: String) throws -> Notification.AlertValue {
        switch value {
        case .string(let text):
            return .string(text)
        case .object(let fields):
            var alert = Alert()
            for (key, field) in fields {
                alert[key] = field
            }
            return .dictionary(alert)
        default:
            throw unsupported(value, name)
        }
    }
}
