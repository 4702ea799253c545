/// Where certificate or key bytes come from: a file path or the bytes themselves.
/// A string literal is a path.
public enum CredentialSource: Sendable, Hashable, ExpressibleByStringLiteral {
    /// A file to read when the connection first connects.
    case file(String)
    /// The bytes themselves (PEM text, DER or PKCS#12).
    case data([UInt8])

    /// A file path.
    public init(stringLiteral path: String) {
        self = .file(path)
    }
}
