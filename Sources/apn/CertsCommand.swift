import APNTLS
import Foundation

/// `apn certs DIR [--topic T] [--environment E] [--p12-password-file FILE]`: a CA, a loopback
/// server certificate and an Apple-style push client certificate, written as PEM files (and
/// the client as .p12).
enum CertsCommand: Subcommand {
    static let name = "certs"
    static let arguments = "DIR"
    static let summary = "write a CA, a server and a push client certificate into DIR"
    static let synopsis = "DIR [--topic com.example.app] [--environment sandbox|production|both] [--p12-password-file FILE] [--force]"
    static let about: String? = """
          Writes ca.pem, ca.key, server.pem, server.key, client.pem, client.key and client.p12
          into DIR (created if needed). The server certificate covers localhost, 127.0.0.1 and ::1;
          the client certificate carries the sandbox and production push markers for the topic
          (Apple's extensions 1.2.840.113635.100.6.3.1 and .2). --environment sandbox or production
          marks it for that one only (apn mock-gateway --http2 answers a certificate for the other
          403 BadCertificateEnvironment); both marks it for both and adds Apple's topics extension
          (1.2.840.113635.100.6.3.6: the topic, TOPIC.voip, TOPIC.complication), so requests must
          then name their topic.
          client.p12 is protected by a password (empty by default); --p12-password-file FILE (its
          first line) or $APN_P12_PASSWORD keep it out of `ps`. For the HTTP/2 provider API it
          also writes AuthKey_MOCKKEY001.p8, a provider-token signing key (EC P-256, PKCS#8, as Apple issues them),
          and AuthKey_MOCKKEY001.pub.pem, its public key for the mock gateway (key id MOCKKEY001,
          team id MOCKTEAM01). Keys are written with mode 0600.
        """
    static let flagGroups = [
        FlagGroup([
            .valued("--topic", "TOPIC", "the bundle id the client certificate is for", default: "com.example.app"),
            .valued(
                "--environment", "sandbox|production|both",
                "mark the client certificate for one environment, or both with the topics extension (default: both "
                    + "markers, no topics extension)"),
            .valued("--p12-password", "PW", "the password of client.p12 (default empty; shows in ps)"),
            .valued(
                "--p12-password-file", "FILE",
                "the password of client.p12 from FILE's first line (also $\(p12PasswordVariable))"),
            .toggle(
                "--force",
                "replace a set already in DIR (a mock gateway using its CA then refuses clients of the new one)"),
        ])
    ]
    static let epilogue: String? = """
        Prints {"dir":"DIR","files":["ca.pem",…],"provider_key_id":"MOCKKEY001","provider_team_id":"MOCKTEAM01"}.
        Exits 1 when DIR already holds any of those files (without --force) or they cannot be written,
        2 on bad usage.
        """

    /// The environment variable the password of client.p12 may come from.
    static let p12PasswordVariable = "APN_P12_PASSWORD"

    static func run(_ flags: Flags) throws -> Int32 {
        guard flags.positional.count == 1, let directory = flags.positional.first else {
            throw UsageError(flags.positional.isEmpty ? "certs needs a directory" : "certs takes one directory")
        }
        let topic = flags.value("--topic") ?? "com.example.app"
        guard !topic.isEmpty else { throw UsageError("--topic must not be empty") }
        var marking = CertificateFiles.Marking.bothEnvironments
        if let name = flags.value("--environment") {
            let markings: [String: CertificateFiles.Marking] = [
                "sandbox": .sandbox, "production": .production, "both": .universal,
            ]
            guard let chosen = markings[name] else {
                throw UsageError("--environment: \"\(name)\" is not one of sandbox, production, both")
            }
            marking = chosen
        }
        let p12Password = try SecretInput.read(
            flags, flag: "--p12-password", fileFlag: "--p12-password-file", variable: p12PasswordVariable) ?? ""
        let existing = CertificateFiles.names.filter { FileManager.default.fileExists(atPath: PathText.join(directory, $0)) }
        if !existing.isEmpty && !flags.has("--force") {
            LineWriter.stderr(
                "apn certs: \(directory) already holds \(existing.joined(separator: ", ")); not replaced (a running "
                    + "mock gateway may use that CA). --force replaces them.")
            return 1
        }
        let written = try CertificateFiles.generate(
            in: directory, topic: topic, p12Password: p12Password, marking: marking)
        LineWriter.stdout(
            .object([
                ("dir", .string(directory)), ("files", .array(written.map { .string($0) })),
                ("provider_key_id", .string(CertificateFiles.providerKeyID)),
                ("provider_team_id", .string(CertificateFiles.providerTeamID)),
            ]))
        return 0
    }
}

/// The certificate files `apn certs` writes and `apn mock-gateway --certs` reads.
enum CertificateFiles {
    /// How long generated certificates stay valid.
    static let validity = CertificateValidity.days(365)
    /// The key id of the provider-token key `apn certs` writes (Apple's are 10 characters).
    static let providerKeyID = "MOCKKEY001"
    /// The team id the mock gateway accepts that key for.
    static let providerTeamID = "MOCKTEAM01"
    /// The provider-token signing key's file name, as Apple names them.
    static let providerKeyFile = "AuthKey_\(providerKeyID).p8"
    /// Its public key, for the mock gateway.
    static let providerPublicKeyFile = "AuthKey_\(providerKeyID).pub.pem"
    /// Every file ``generate(in:topic:p12Password:marking:)`` writes, in order.
    static let names = [
        "ca.pem", "ca.key", "server.pem", "server.key", "client.pem", "client.key", "client.p12", providerKeyFile,
        providerPublicKeyFile,
    ]

    /// What the client certificate is marked for.
    enum Marking {
        /// Both environments' markers, no topics extension: `apn certs` without `--environment`.
        case bothEnvironments
        case sandbox
        case production
        /// Both markers and the topics extension, as Apple's certificates for both environments.
        case universal
    }

    /// Generates a CA, server and client certificate and writes them into `directory`.
    /// - Returns: the file names written, in order.
    static func generate(
        in directory: String, topic: String, p12Password: String, marking: Marking = .bothEnvironments
    ) throws -> [String] {
        try createDirectory(directory)
        let authority = try CertificateAuthority(commonName: "swift-apn mock gateway CA", validity: validity)
        let server = try authority.issueServerCertificate(validity: validity)
        let environments: [PushEnvironment] = switch marking {
        case .sandbox: [.sandbox]
        case .production: [.production]
        case .bothEnvironments, .universal: [.sandbox, .production]
        }
        let client = try authority.issueClientCertificate(
            topic: topic, environments: environments,
            topics: marking == .universal ? PushTopic.universal(bundleID: topic) : [], validity: validity)
        let providerKey = try ES256SigningKey.generate()
        let files: [(String, [UInt8], Bool)] = [
            ("ca.pem", Array(try authority.certificate.pem().utf8), false),
            ("ca.key", Array(try authority.privateKey.pem().utf8), true),
            ("server.pem", Array(try server.certificate.pem().utf8), false),
            ("server.key", Array(try server.privateKey.pem().utf8), true),
            ("client.pem", Array(try client.certificate.pem().utf8), false),
            ("client.key", Array(try client.privateKey.pem().utf8), true),
            ("client.p12", try client.credentials().pkcs12(password: p12Password), true),
            (providerKeyFile, Array(providerKey.pkcs8PEM().utf8), true),
            (providerPublicKeyFile, Array(providerKey.verificationKey.publicKeyPEM().utf8), false),
        ]
        for (name, bytes, secret) in files {
            try write(bytes, to: PathText.join(directory, name), secret: secret)
        }
        return files.map(\.0)
    }

    /// Creates `path` and its missing parents, as `mkdir -p` does.
    /// - Throws: ``FileError`` naming the path that is not a directory or could not be made.
    static func createDirectory(_ path: String) throws(FileError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw FileError(path: path, errno: ENOTDIR) }
            return
        }
        let parent = PathText.parent(of: path)
        if !parent.isEmpty && parent != path { try createDirectory(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw FileError(path: path, errno: errno) }
    }

    /// Writes `bytes` to `path`, replacing it; `secret` files get mode 0600.
    private static func write(_ bytes: [UInt8], to path: String, secret: Bool) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, secret ? 0o600 : 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, errno: errno) }
        defer { close(descriptor) }
        if secret { fchmod(descriptor, 0o600) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, errno: errno)
            }
            offset += written
        }
    }
}

/// A file could not be written or read.
struct FileError: Error, CustomStringConvertible {
    let path: String
    let errno: Int32

    var description: String { "\(path): \(String(cString: strerror(errno)))" }
}
