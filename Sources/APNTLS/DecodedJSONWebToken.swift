/// A provider token read by ``JSONWebToken/decode(_:)``: well formed and ES256, but not yet
/// known to be genuine until ``isSigned(by:)`` says so.
public struct DecodedJSONWebToken: Sendable, Hashable {
    /// The header's `alg`: always "ES256", the only algorithm decoded.
    public let algorithm: String
    /// The header's `kid`, and the claims `iss` and `iat`.
    public let claims: ProviderTokenClaims
    /// The bytes the signature covers: the first two parts of the token with the "." between.
    public let signingInput: [UInt8]
    /// The signature as sent: 64 bytes, r‖s.
    public let signature: [UInt8]

    /// Whether `key` made the signature over ``signingInput``.
    public func isSigned(by key: ES256VerificationKey) -> Bool {
        key.isValidSignature(signature, for: signingInput)
    }
}
