/// One header field of a request or response, pseudo-headers (`:method`, `:path`, `:status`, …)
/// included. Names are lowercase, as HTTP/2 requires: nghttp2 rejects a received field with
/// an uppercase name, and ``HTTP2Session`` refuses to send one.
public struct HTTP2Header: Sendable, Hashable, CustomStringConvertible {
    /// The field name, lowercase, e.g. `:path` or `apns-topic`.
    public var name: String
    /// The field value, e.g. `/3/device/…` or `com.example.app`.
    public var value: String

    /// A field named `name` (lowercase) with `value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// "name: value".
    public var description: String { "\(name): \(value)" }
}

extension [HTTP2Header] {
    /// The value of the first field named `name`, if any (`headers[":status"]`).
    public subscript(name: String) -> String? {
        first { $0.name == name }?.value
    }
}
