extension TLSError {
    /// What failed. Compare with the static values (`error.kind == .verify`); new kinds may
    /// be added in later versions.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case connect, handshake, verify, read, write, shutdown, timeout
            case connectionReset = "connection reset"
            case alertReceived = "alert received"
            case listen, accept
            case credentials
            case fileNotFound = "file not found"
            case passphraseRequired = "passphrase required"
            case wrongPassphrase = "wrong passphrase"
            case keyMismatch = "key does not match certificate"
            case certificateExpired = "certificate expired"
            case certificateGeneration = "certificate generation"
            case configuration
            case wrongEnvironment = "wrong push environment"
            case wrongKeyType = "wrong key type"
            case signing
            case applicationProtocolRefused = "application protocol refused"
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// Resolving the host or establishing the TCP connection failed.
        public static let connect = Kind(.connect)
        /// The TLS handshake failed for a reason other than certificate verification
        /// (protocol version, alert from the peer, missing client certificate, …).
        public static let handshake = Kind(.handshake)
        /// The peer's certificate was refused; see ``TLSError/verifyResult``.
        public static let verify = Kind(.verify)
        /// Reading application data failed (for an alert from the peer, see
        /// ``alertReceived``).
        public static let read = Kind(.read)
        /// Writing application data failed.
        public static let write = Kind(.write)
        /// Sending close_notify failed.
        public static let shutdown = Kind(.shutdown)
        /// A deadline passed before the operation could finish.
        public static let timeout = Kind(.timeout)
        /// The peer reset the TCP connection (`ECONNRESET`/`EPIPE`).
        public static let connectionReset = Kind(.connectionReset)
        /// After the handshake, the peer ended the session with a fatal TLS alert, such as a
        /// TLS 1.3 server refusing the client certificate ("certificate required"): its TLS
        /// layer refused the session, so it processed none of the application data.
        public static let alertReceived = Kind(.alertReceived)
        /// Creating, binding or listening on the server socket failed.
        public static let listen = Kind(.listen)
        /// Accepting a connection failed.
        public static let accept = Kind(.accept)
        /// Certificate or key data could not be read or used.
        public static let credentials = Kind(.credentials)
        /// A credentials file does not exist; see ``TLSError/path``.
        public static let fileNotFound = Kind(.fileNotFound)
        /// The private key is encrypted and no passphrase was given.
        public static let passphraseRequired = Kind(.passphraseRequired)
        /// The passphrase does not decrypt the private key.
        public static let wrongPassphrase = Kind(.wrongPassphrase)
        /// The private key does not belong to the certificate.
        public static let keyMismatch = Kind(.keyMismatch)
        /// The certificate's validity ended; see ``TLSError/date``.
        public static let certificateExpired = Kind(.certificateExpired)
        /// Generating a key or certificate failed.
        public static let certificateGeneration = Kind(.certificateGeneration)
        /// A context could not be configured with the given options.
        public static let configuration = Kind(.configuration)
        /// The push client certificate lacks Apple's extension for the chosen environment;
        /// see ``TLSCredentials/checkPushEnvironment(_:)``.
        public static let wrongEnvironment = Kind(.wrongEnvironment)
        /// The key is not of the type the operation needs, such as an RSA or P-384 key
        /// where ES256 needs an EC key on P-256.
        public static let wrongKeyType = Kind(.wrongKeyType)
        /// Computing a signature failed.
        public static let signing = Kind(.signing)
        /// A server refused the handshake because the client offered ALPN protocols, none
        /// of which the server speaks (it sent the no_application_protocol alert). A client
        /// that offers no ALPN at all is not refused.
        public static let applicationProtocolRefused = Kind(.applicationProtocolRefused)

        /// The kind's name, e.g. "verify" or "wrong passphrase".
        public var description: String { base.rawValue }

        /// What to try next, when there is an obvious next step.
        var hint: String? {
            switch base {
            case .verify:
                "check that the CA certificates given to the client signed the server's certificate and that the certificate names the host you connect to"
            case .passphraseRequired, .wrongPassphrase:
                "pass the passphrase the key was encrypted with"
            case .keyMismatch:
                "use the key that was generated together with this certificate"
            case .certificateExpired:
                "renew the certificate"
            case .fileNotFound:
                "check the path"
            case .alertReceived:
                "the peer refused the TLS session: check that it accepts this client certificate"
            case .wrongEnvironment:
                "use a certificate Apple issued for this environment, or connect to the environment the certificate was issued for (sandbox or production)"
            case .wrongKeyType:
                "provider tokens need the EC P-256 key Apple issues as AuthKey_<key id>.p8"
            default:
                nil
            }
        }
    }
}
