import APN

/// `--proxy URL|env`, on `apn send --http2` and `apn bridge` (the upstream): the HTTP proxy
/// the provider's connections go through. `env` reads `https_proxy` and `no_proxy` for the
/// upstream's host; a proxy is never taken from the environment without it.
enum ProxyFlag {
    /// The flag, declared once for both commands.
    static let flag = Flag.valued(
        "--proxy", "URL",
        "reach Apple through this HTTP proxy (CONNECT): http://[USER:PASSWORD@]HOST:PORT, or env for $https_proxy "
            + "unless $no_proxy lists the host")

    /// The proxy `--proxy` asks for to reach `host`; nil without the flag (or with `env`
    /// and no proxy for `host` in the environment).
    static func proxy(_ flags: Flags, host: String) throws(UsageError) -> HTTPProxy? {
        guard let text = flags.value("--proxy") else { return nil }
        do throws(HTTPProxy.URLError) {
            if text == "env" { return try HTTPProxy.fromEnvironment(for: host) }
            return try HTTPProxy(url: text)
        } catch {
            throw UsageError("--proxy: \(error.message)")
        }
    }
}
