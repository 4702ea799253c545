/// A proxy's answer to `CONNECT`, up to the empty line: the status line and the fields.
struct ProxyResponseHead: Sendable, Hashable {
    /// One header field, as sent (the name's case kept).
    struct Field: Sendable, Hashable {
        var name: String
        var value: String
    }

    /// The status line without its line end, e.g. `HTTP/1.1 407 Proxy Authentication Required`.
    var statusLine: String
    /// The three-digit status code.
    var status: Int
    var fields: [Field]

    /// Whether the tunnel is open: a 2xx answer (RFC 9110 §9.3.6).
    var opensTunnel: Bool { (200...299).contains(status) }

    /// The first field named `name`, ignoring case.
    func field(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
