public import Foundation

/// Everything that can go wrong in the TLS transport, with the context needed to act on it:
/// what failed, OpenSSL's error queue at that moment, the certificate verification result,
/// and the operating system's `errno`.
///
/// `TLSError` is a struct around a private enum (see ``Kind``), so new kinds can be added
/// without breaking code that switches over the existing ones.
public struct TLSError: Error, Sendable, CustomStringConvertible {
    /// What failed.
    public let kind: Kind
    /// A sentence saying what was being done, e.g. "connecting to 127.0.0.1:443".
    public let context: String
    /// OpenSSL's error queue, oldest first, drained right after the failing call
    /// (the queue is cleared before every call, so nothing here is stale).
    public let openSSLErrors: [String]
    /// The peer certificate's verification result when verification failed.
    public let verifyResult: VerifyResult?
    /// The operating system error number when a system call failed.
    public let errno: Int32?
    /// The file involved, for credentials read from disk.
    public let path: String?
    /// The date involved, e.g. the `notAfter` of an expired certificate.
    public let date: Date?
    /// For ``Kind-swift.struct/alertReceived``: the alert's description number (RFC 8446
    /// §6), e.g. 116 for "certificate required".
    public let alert: UInt8?

    /// Creates an error; APNTLS builds these, callers normally only read them.
    public init(
        _ kind: Kind,
        _ context: String,
        openSSLErrors: [String] = [],
        verifyResult: VerifyResult? = nil,
        errno: Int32? = nil,
        path: String? = nil,
        date: Date? = nil,
        alert: UInt8? = nil
    ) {
        self.kind = kind
        self.context = context
        self.openSSLErrors = openSSLErrors
        self.verifyResult = verifyResult
        self.errno = errno
        self.path = path
        self.date = date
        self.alert = alert
    }

    /// Whether the peer's alert refused our certificate (bad, unsupported, revoked,
    /// expired or unknown certificate, unknown CA, access denied, certificate required):
    /// its TLS layer turned the session down, so it processed nothing we sent.
    public var refusesCertificate: Bool {
        guard kind == .alertReceived, let alert else { return false }
        return [42, 43, 44, 45, 46, 48, 49, 116].contains(alert)
    }

    /// One line a person can act on: the kind, the context, then each piece of evidence.
    public var description: String {
        // `connect` is the TCP connection (or resolving and making its socket), before any
        // TLS: "TLS connect failed" misled people reading a refused port. A timeout's
        // context says what timed out ("TLS handshake with …", "connecting to …").
        let headline = switch kind {
        case .connect: "TCP connect failed: \(context)"
        case .timeout: "timed out: \(context)"
        default: "TLS \(kind) failed: \(context)"
        }
        var parts = [headline]
        if let verifyResult {
            parts.append("certificate verification: \(verifyResult)")
        }
        if let errno {
            parts.append("errno \(errno) (\(systemErrorMessage(errno)))")
        }
        if let path {
            parts.append("path \(path)")
        }
        if let date {
            parts.append("date \(date)")
        }
        if !openSSLErrors.isEmpty {
            parts.append("OpenSSL: " + openSSLErrors.joined(separator: "; "))
        }
        if let hint = kind.hint {
            parts.append(hint)
        }
        return parts.joined(separator: " — ")
    }
}

extension TLSError {
    /// The result of verifying a peer certificate: OpenSSL's `X509_V_ERR_*` code and text.
    public struct VerifyResult: Sendable, Hashable, CustomStringConvertible {
        /// The `X509_V_ERR_*` code, e.g. 10 (certificate has expired) or 62 (hostname mismatch).
        public let code: Int32
        /// OpenSSL's text for `code`.
        public let message: String

        /// `X509_V_ERR_CERT_HAS_EXPIRED`.
        public static let certificateExpiredCode: Int32 = 10
        /// `X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY`: signed by a CA that is not trusted.
        public static let untrustedIssuerCode: Int32 = 20
        /// `X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN`: the peer sent an untrusted root along
        /// with its certificate.
        public static let selfSignedInChainCode: Int32 = 19
        /// `X509_V_ERR_HOSTNAME_MISMATCH`.
        public static let hostnameMismatchCode: Int32 = 62
        /// `X509_V_ERR_IP_ADDRESS_MISMATCH`.
        public static let ipAddressMismatchCode: Int32 = 64

        /// Creates a result from a code and its text.
        public init(code: Int32, message: String) {
            self.code = code
            self.message = message
        }

        /// "code N: message".
        public var description: String { "code \(code): \(message)" }
    }
}
