internal import COpenSSL

/// A TLS protocol version, for a context's minimum and maximum.
public struct TLSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// OpenSSL's `TLS1_x_VERSION` value.
    let rawValue: Int32

    /// TLS 1.0 — only for old peers; enabling it lowers OpenSSL's security level to 0.
    public static let tls1_0 = TLSVersion(rawValue: TLS1_VERSION)
    /// TLS 1.1 — only for old peers; enabling it lowers OpenSSL's security level to 0.
    public static let tls1_1 = TLSVersion(rawValue: TLS1_1_VERSION)
    /// TLS 1.2, the default minimum.
    public static let tls1_2 = TLSVersion(rawValue: TLS1_2_VERSION)
    /// TLS 1.3.
    public static let tls1_3 = TLSVersion(rawValue: TLS1_3_VERSION)

    /// Orders versions from oldest to newest.
    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.rawValue < rhs.rawValue }

    /// "TLS 1.2" and so on.
    public var description: String {
        switch rawValue {
        case TLS1_VERSION: "TLS 1.0"
        case TLS1_1_VERSION: "TLS 1.1"
        case TLS1_2_VERSION: "TLS 1.2"
        case TLS1_3_VERSION: "TLS 1.3"
        default: "TLS version 0x\(String(rawValue, radix: 16))"
        }
    }
}
