extension TokenStore {
    /// `location` as messages may show it: a PostgreSQL URL with any password replaced by
    /// `***`, a file path unchanged.
    public static func redacted(_ location: String) -> String {
        PostgresURL(location)?.redacted ?? location
    }
}
