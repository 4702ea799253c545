extension TokenStore {
    /// `location` as messages may show it: a PostgreSQL URL with any password replaced by
    /// `***`, a file path unchanged.
    public static func redacted(_ location: String) -> String {
        PostgresURL(location)?.redacted ?? location
    }
}

extension TokenStore {
    /// Whether `location` names a PostgreSQL store (a `postgresql://` or `postgres://` URL).
    public static func isPostgreSQL(_ location: String) -> Bool {
        PostgresURL(location) != nil
    }
}
