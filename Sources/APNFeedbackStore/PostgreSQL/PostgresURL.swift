/// A `postgresql://` (or `postgres://`) connection URL as libpq reads it, and the same URL
/// safe to show: a password in it (`user:secret@`, `?password=secret`) becomes `***`.
/// Messages use ``redacted`` only; ``text`` goes to libpq and nowhere else.
struct PostgresURL: Sendable, CustomStringConvertible {
    /// The URL as given, for `PQconnectdb`.
    let text: String
    /// The URL with any password replaced by `***`.
    let redacted: String

    /// Nil when `location` is not a PostgreSQL URL (a SQLite file path, then).
    init?(_ location: String) {
        guard let scheme = ["postgresql://", "postgres://"].first(where: location.hasPrefix) else { return nil }
        text = location
        redacted = scheme + Self.redact(String(location.dropFirst(scheme.count)))
    }

    var description: String { redacted }

    /// The URL with `parameters` (`key=value&…`) added to its query.
    /// They must hold no password: they are shown as given.
    func adding(_ parameters: String) -> PostgresURL {
        let separator = text.contains("?") ? "&" : "?"
        return PostgresURL(text: text + separator + parameters, redacted: redacted + separator + parameters)
    }

    private init(text: String, redacted: String) {
        self.text = text
        self.redacted = redacted
    }

    private static func redact(_ rest: String) -> String {
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        var tail = String(rest[authorityEnd...])
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            authority = String(authority[...colon]) + "***" + String(authority[at...])
        }
        if let question = tail.firstIndex(of: "?") {
            let query = tail[tail.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map {
                $0.lowercased().hasPrefix("password=") ? "password=***" : String($0)
            }
            tail = String(tail[...question]) + query.joined(separator: "&")
        }
        return authority + tail
    }
}
