/// Apple's push environments, as marked in a push client certificate by a non-critical
/// extension with a per-environment OID.
public struct PushEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// The extension OID that marks a certificate for this environment.
    public let oid: String
    private let name: String

    /// The sandbox (development) gateway: OID 1.2.840.113635.100.6.3.1.
    public static let sandbox = PushEnvironment(oid: "1.2.840.113635.100.6.3.1", name: "sandbox")
    /// The production gateway: OID 1.2.840.113635.100.6.3.2.
    public static let production = PushEnvironment(oid: "1.2.840.113635.100.6.3.2", name: "production")

    /// "sandbox" or "production".
    public var description: String { name }
}
