public import Foundation

extension HTTPProxy {
    /// The proxy the environment names for an `https` connection to `host`, as curl reads
    /// it: `https_proxy` (or `HTTPS_PROXY`), unless `no_proxy` (or `NO_PROXY`) lists
    /// `host`. Read only when called: a ``Provider`` never takes a proxy from the
    /// environment by itself (`apn send --proxy env` calls this).
    ///
    /// `no_proxy` is a list separated by commas or spaces: `*` (every host), a host
    /// (`api.push.apple.com`, which also covers its subdomains), or a domain with a leading
    /// dot (`.apple.com`, or `*.apple.com`: the domain and its subdomains). Case does not
    /// matter; ports in entries are ignored; IP addresses match exactly (no CIDR ranges).
    ///
    /// - Parameter environment: the variables to read; the process's by default.
    /// - Returns: `nil` when no proxy variable is set (or is empty) or `no_proxy` lists `host`.
    /// - Throws: ``URLError`` when the variable holds no proxy URL.
    public static func fromEnvironment(
        for host: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(URLError) -> HTTPProxy? {
        let variable = ["https_proxy", "HTTPS_PROXY"].first { environment[$0]?.isEmpty == false }
        guard let variable, let text = environment[variable] else { return nil }
        let exceptions = ["no_proxy", "NO_PROXY"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        if NoProxyList(exceptions).excludes(host) { return nil }
        do throws(URLError) {
            return try HTTPProxy(url: text)
        } catch {
            throw URLError(message: "$\(variable): \(error.message)")
        }
    }
}

/// A `no_proxy` list, pure: which hosts go straight, not through the proxy.
struct NoProxyList: Sendable, Hashable {
    /// Every host goes straight (`*`).
    let all: Bool
    /// Lower-case names without a leading dot or `*.`, without port or brackets: each
    /// covers itself and its subdomains.
    let domains: [String]

    init(_ text: String) {
        var all = false
        var domains: [String] = []
        for entry in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            var name = Substring(entry.lowercased())
            if name == "*" {
                all = true
                continue
            }
            if name.hasPrefix("*.") { name = name.dropFirst(2) }
            while name.hasPrefix(".") { name = name.dropFirst() }
            if name.hasPrefix("["), let close = name.firstIndex(of: "]") {
                name = name[name.index(after: name.startIndex)..<close]  // [::1]:443 → ::1
            } else if name.filter({ $0 == ":" }).count == 1, let colon = name.firstIndex(of: ":") {
                name = name[..<colon]  // host:443 → host (a bare IPv6 address has several colons)
            }
            while name.hasSuffix(".") { name = name.dropLast() }
            if !name.isEmpty { domains.append(String(name)) }
        }
        self.all = all
        self.domains = domains
    }

    /// Whether `host` is listed: equal to an entry, or a subdomain of one.
    func excludes(_ host: String) -> Bool {
        if all { return true }
        var name = Substring(host.lowercased())
        if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        while name.hasSuffix(".") { name = name.dropLast() }
        return domains.contains { name == $0 || name.hasSuffix("." + $0) }
    }
}
