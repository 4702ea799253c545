/// Where a client connects and what it presents there: the credentials and host part that
/// ``Connection/Options``, ``Feedback/Options`` and ``Provider/Options`` share, with
/// node-apn's names. Each of them holds one as ``ServiceAccessOptions/access`` and reads
/// and sets its properties as its own:
///
/// ```swift
/// var options = Connection.Options()
/// options.cert = "cert.pem"
/// options.key = "key.pem"
/// options.production = true
/// ```
public struct ServiceAccess: Sendable {
    // MARK: Credentials

    /// The client certificate (PEM, or DER), with its chain after it in PEM. Default
    /// `cert.pem` in the working directory, as node-apn.
    public var cert: CredentialSource? = "cert.pem"
    /// The private key for ``cert`` (PEM or DER; encrypted with ``passphrase``). Default
    /// `key.pem`. May name the same file as ``cert``.
    public var key: CredentialSource? = "key.pem"
    /// Certificates (PEM or DER) the server's certificate must chain to; `nil` uses the
    /// system's CA store.
    public var ca: [CredentialSource]?
    /// A PKCS#12 bundle with certificate and key (modern or legacy algorithms). When set,
    /// it is used instead of ``cert`` and ``key``.
    public var pfx: CredentialSource?
    /// The passphrase of an encrypted key, or the PKCS#12 password.
    public var passphrase: String?
    /// Check that the certificate carries Apple's push extension for the environment
    /// (sandbox 1.2.840.113635.100.6.3.1, production …3.2) before connecting, as node-apn
    /// 1.7 did. A certificate without it fails with 513.
    public var checksPushEnvironment = true

    // MARK: Where

    /// The host; `nil`: ``productionHost`` when ``production``, else ``sandboxHost``.
    public var address: String?
    /// The port (the gateway's 2195, the feedback service's 2196, the provider API's 443).
    public var port: UInt16
    /// Use the production environment: Apple's production host, and the production
    /// certificate extension (see ``isProduction``).
    public var production = false
    /// Verify the server's certificate and host name (node-apn's `rejectUnauthorized`).
    /// Turning it off is logged once per process.
    public var rejectUnauthorized = true

    /// Apple's production host for this service.
    public let productionHost: String
    /// Apple's sandbox host for this service.
    public let sandboxHost: String

    /// A host that wins over ``address``: `Connection.Options.gateway`, node-apn's legacy
    /// name for it.
    var legacyAddress: String?
    /// Whether ``host`` decides the environment when it is one of Apple's (the binary
    /// interface's rule, node-apn's); otherwise ``production`` alone does (the provider API).
    let hostDecidesEnvironment: Bool

    init(port: UInt16, productionHost: String, sandboxHost: String, hostDecidesEnvironment: Bool = true) {
        self.port = port
        self.productionHost = productionHost
        self.sandboxHost = sandboxHost
        self.hostDecidesEnvironment = hostDecidesEnvironment
    }

    /// The host connected to, after ``address`` and ``production``.
    public var host: String {
        legacyAddress ?? address ?? (production ? productionHost : sandboxHost)
    }

    /// Whether the production environment is in use: for the binary gateway and feedback
    /// service the host decides when it is one of Apple's, as in node-apn; otherwise (and
    /// always for the provider API) ``production``.
    public var isProduction: Bool {
        guard hostDecidesEnvironment else { return production }
        switch host {
        case productionHost: return true
        case sandboxHost: return false
        default: return production
        }
    }
}

/// Options that hold a ``ServiceAccess`` and read and set its properties as their own
/// (`options.cert` is `options.access.cert`).
@dynamicMemberLookup
public protocol ServiceAccessOptions {
    /// The credentials and the host.
    var access: ServiceAccess { get set }
}

extension ServiceAccessOptions {
    /// Points the options at `host`:`port`, presenting `certificatePEM` with its
    /// `privateKeyPEM` and trusting only `trustingPEM`'s authority: the PEM texts a test
    /// gateway hands out (the mock's `MockGateway.clientCredentials()`). Every other option
    /// keeps its value.
    public mutating func point(
        at host: String, port: UInt16, certificatePEM: String, privateKeyPEM: String, trustingPEM: String
    ) {
        access.address = host
        access.port = port
        access.cert = .data(Array(certificatePEM.utf8))
        access.key = .data(Array(privateKeyPEM.utf8))
        access.pfx = nil
        access.ca = [.data(Array(trustingPEM.utf8))]
    }

    /// A property of ``access``, read and set as the options' own.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ServiceAccess, Value>) -> Value {
        get { access[keyPath: keyPath] }
        set { access[keyPath: keyPath] = newValue }
    }

    /// A read-only property of ``access`` (``ServiceAccess/host``,
    /// ``ServiceAccess/isProduction``), read as the options' own.
    public subscript<Value>(dynamicMember keyPath: KeyPath<ServiceAccess, Value>) -> Value {
        access[keyPath: keyPath]
    }
}
