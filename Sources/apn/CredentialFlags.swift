import APN

/// The credential and address flags `apn feedback` and `apn send` share: `--certs`,
/// `--cert/--key`, `--pfx/--passphrase`, `--ca`, `--address`, `--sandbox/--production`.
struct CredentialFlags {
    /// The usage lines for these flags; `service` names what `--address` reaches and its
    /// defaults, e.g. `the gateway (default …)`.
    static func usage(address service: String, sandbox: String, production: String) -> String {
        """
          --certs DIR               use DIR/client.pem, DIR/client.key and DIR/ca.pem (as written by `apn certs`)
          --cert FILE --key FILE    the push certificate and its key (PEM or DER)
          --pfx FILE                a PKCS#12 bundle instead of --cert/--key
          --passphrase PW           the key's passphrase or the PKCS#12 password
          --ca FILE                 trust this CA certificate (default: the system store; --certs sets it)
          --address HOST:PORT       \(service) (default \(sandbox),
                                    \(production) with --production)
          --sandbox | --production  the environment (default sandbox)
        """
    }

    /// The feedback service's lines of ``usage(address:sandbox:production:)``.
    static let feedbackUsage = usage(
        address: "the feedback service", sandbox: "feedback.sandbox.push.apple.com:2196",
        production: "feedback.push.apple.com:2196")

    /// The flags that take a value.
    static let valued: Set<String> = ["--certs", "--cert", "--key", "--pfx", "--passphrase", "--ca", "--address"]
    /// The switches.
    static let switches: Set<String> = ["--sandbox", "--production"]

    var cert: CredentialSource?
    var key: CredentialSource?
    var pfx: CredentialSource?
    var passphrase: String?
    var ca: [CredentialSource]?
    var address: String?
    var port: UInt16?
    var production = false

    init(_ flags: Flags) throws(UsageError) {
        if flags.switches.contains("--sandbox") && flags.switches.contains("--production") {
            throw UsageError("--sandbox and --production exclude each other")
        }
        production = flags.switches.contains("--production")
        if let directory = flags.value("--certs") {
            cert = .file("\(directory)/client.pem")
            key = .file("\(directory)/client.key")
            ca = [.file("\(directory)/ca.pem")]
        }
        if let cert = flags.value("--cert") { self.cert = .file(cert) }
        if let key = flags.value("--key") { self.key = .file(key) }
        if let pfx = flags.value("--pfx") { self.pfx = .file(pfx) }
        if let ca = flags.value("--ca") { self.ca = [.file(ca)] }
        passphrase = flags.value("--passphrase")
        if let address = flags.value("--address") {
            let (host, port) = Flags.splitSuffix(address)
            guard let port, !host.isEmpty else { throw UsageError("--address needs HOST:PORT, got \"\(address)\"") }
            self.address = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            self.port = try Flags.integer(port, as: UInt16.self, in: 1...65535, what: "--address port")
        }
    }

    /// Sets the credentials and address of a gateway, feedback or provider connection.
    func apply(to options: inout ServiceAccess) {
        options.production = production
        if let cert { options.cert = cert }
        if let key { options.key = key }
        if let pfx { options.pfx = pfx }
        if let ca { options.ca = ca }
        options.passphrase = passphrase
        if let address { options.address = address }
        if let port { options.port = port }
    }
}
