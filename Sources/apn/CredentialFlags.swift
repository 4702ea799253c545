import APN

/// The credential and address flags `apn feedback`, `apn feedback-service` and `apn send`
/// share: `--certs`, `--cert/--key`, `--pfx`, the passphrase (`--passphrase`,
/// `--passphrase-file`, `APN_PASSPHRASE`), `--ca`, `--address`, `--sandbox/--production`.
struct CredentialFlags {
    /// The environment variable the passphrase is read from when no flag gives it.
    static let passphraseVariable = "APN_PASSPHRASE"

    /// The flags; `service` names what `--address` reaches, with its two default addresses.
    static func group(address service: String, sandbox: String, production: String) -> FlagGroup {
        FlagGroup(
            "Credentials and address:",
            [
                .valued(
                    "--certs", "DIR", "use DIR/client.pem, DIR/client.key and DIR/ca.pem (as written by `apn certs`)"),
                .valued("--cert", "FILE", "the push certificate (PEM or DER); with --key"),
                .valued("--key", "FILE", "the certificate's private key (PEM or DER); with --cert"),
                .valued("--pfx", "FILE", "a PKCS#12 bundle instead of --cert/--key"),
                .valued(
                    "--passphrase", "PW",
                    "the key's passphrase or the PKCS#12 password; it shows in `ps`, so prefer --passphrase-file or "
                        + "\(passphraseVariable)"),
                .valued("--passphrase-file", "FILE", "read the passphrase from FILE's first line instead"),
                .valued("--ca", "FILE", "trust this CA certificate (default: the system store; --certs sets it)"),
                .valued("--address", "HOST:PORT", "\(service) (default \(sandbox), \(production) with --production)"),
                .toggle("--sandbox", "Apple's sandbox environment (the default)"),
                .toggle("--production", "Apple's production environment"),
            ],
            notes: "  Without --passphrase or --passphrase-file the passphrase is $\(passphraseVariable), if set.")
    }

    /// The feedback service's ``group(address:sandbox:production:)``.
    static let feedbackGroup = group(
        address: "the feedback service", sandbox: "feedback.sandbox.push.apple.com:2196",
        production: "feedback.push.apple.com:2196")

    var cert: CredentialSource?
    var key: CredentialSource?
    var pfx: CredentialSource?
    var passphrase: String?
    var ca: [CredentialSource]?
    var address: String?
    var port: UInt16?
    var production = false

    init(_ flags: Flags) throws(UsageError) {
        if flags.has("--sandbox") && flags.has("--production") {
            throw UsageError("--sandbox and --production exclude each other")
        }
        production = flags.has("--production")
        if let directory = flags.value("--certs") {
            cert = .file("\(directory)/client.pem")
            key = .file("\(directory)/client.key")
            ca = [.file("\(directory)/ca.pem")]
        }
        // Without its key a certificate would be looked for beside key.pem in the current
        // folder (node-apn's default): a mistake, told as one.
        if flags.value("--certs") == nil {
            if flags.value("--cert") != nil && flags.value("--key") == nil {
                throw UsageError("--cert needs --key FILE, the certificate's private key")
            }
            if flags.value("--key") != nil && flags.value("--cert") == nil {
                throw UsageError("--key needs --cert FILE, the certificate it belongs to")
            }
        }
        if let cert = flags.value("--cert") { self.cert = .file(cert) }
        if let key = flags.value("--key") { self.key = .file(key) }
        if let pfx = flags.value("--pfx") { self.pfx = .file(pfx) }
        if let ca = flags.value("--ca") { self.ca = [.file(ca)] }
        passphrase = try SecretInput.read(
            flags, flag: "--passphrase", fileFlag: "--passphrase-file", variable: Self.passphraseVariable)
        if let address = flags.value("--address") {
            let (host, port) = Flags.splitSuffix(address)
            guard let port, !host.isEmpty else { throw UsageError("--address needs HOST:PORT, got \"\(address)\"") }
            self.address = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            self.port = try Flags.integer(port, as: UInt16.self, in: 1...65535, what: "--address port")
        }
    }

    /// Whether a client certificate was given (`--certs`, `--cert` and `--key`, `--pfx`).
    var hasCertificate: Bool { cert != nil || pfx != nil }

    /// Refuses a command line without credentials, naming the flags that give them (else
    /// the library would look for cert.pem and key.pem in the current folder).
    func requireCertificate(orElse alternatives: String = "") throws(UsageError) {
        guard !hasCertificate else { return }
        throw UsageError("no credentials: give --certs DIR, --cert FILE with --key FILE, or --pfx FILE\(alternatives)")
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
