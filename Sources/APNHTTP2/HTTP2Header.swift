/// One header field of a request or response, pseudo-headers (`:method`, `:path`, `:status`, …)
/// included. Names are lowercase, as HTTP/2 requires: nghttp2 rejects a received field with
/// an uppercase name, and ``HTTP2Session`` refuses to send one.
package struct HTTP2Header: Sendable, Hashable, CustomStringConvertible {
    /// The field name, lowercase, e.g. `:path` or `apns-topic`.
    package var name: String
    /// The field value, e.g. `/3/device/…` or `com.example.app`.
    package var value: String
    /// Whether HPACK may add the field to the peers' header tables (the default); `false`
    /// sends it as a literal that neither side's table keeps (RFC 7541 §6.2.3, "never
    /// indexed"). For values unique to one message — `apns-id`, `apns-unique-id` — which
    /// no later message repeats: indexing each would only evict the fields that do repeat
    /// and cost both ends a table insertion (and the sender a search of every entry of
    /// that name). Received fields are always `true`; it takes no part in `==`.
    package var isIndexable: Bool

    /// A field named `name` (lowercase) with `value`.
    package init(_ name: String, _ value: String, isIndexable: Bool = true) {
        self.name = name
        self.value = value
        self.isIndexable = isIndexable
    }

    /// Name and value equal; ``isIndexable`` is how the field travels, not what it says.
    package static func == (lhs: HTTP2Header, rhs: HTTP2Header) -> Bool {
        lhs.name == rhs.name && lhs.value == rhs.value
    }

    /// Hashes the name and value, as `==` compares them.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(value)
    }

    /// "name: value".
    package var description: String { "\(name): \(value)" }
}

extension [HTTP2Header] {
    /// The value of the first field named `name`, if any (`headers[":status"]`).
    package subscript(name: String) -> String? {
        first { $0.name == name }?.value
    }
}
