/// `--admin HOST:PORT`, the one flag every long-running command (`bridge`, `feedback-service`,
/// `mock-gateway`) shares to serve ``AdminServer``'s endpoints: declared and read here once,
/// so the three commands take the same address the same way and say the same thing in
/// `--help`.
enum AdminFlag {
    /// The declaration, for a command's flag groups.
    static let declaration = Flag.valued(
        "--admin", "HOST:PORT",
        "serve GET /metrics (Prometheus), /healthz and /readyz over plain HTTP here (an IPv4 address; "
            + "keep it on loopback or a private network; port 0: the system chooses)")

    /// The group commands without a fitting group of their own add to their flags.
    static let group = FlagGroup("Operating:", [declaration])

    /// Where the admin listener binds, if `--admin` was given. The port is after the last
    /// colon; the address is checked when it is bound (``AdminServer``), where a name that is
    /// not an IPv4 address is told.
    static func parse(_ flags: Flags) throws(UsageError) -> (host: String, port: UInt16)? {
        guard let text = flags.value("--admin") else { return nil }
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]),
            !text[..<colon].isEmpty
        else { throw UsageError("--admin: \"\(text)\" is not HOST:PORT") }
        return (String(text[..<colon]), port)
    }
}
