/// A provider token read by ``JSONWebToken/decode(_:)``: well formed and ES256, but not yet
/// known to be genuine until ``isSigned(by:)`` says so.
package struct DecodedJSONWebToken: Sendable, Hashable {
    /// The header's `alg`: always "ES256", the only algorithm decoded.
    package let algorithm: String
    /// The header's `kid`, and the claims `iss` and `iat`.
    package let claims: ProviderTokenClaims
    /// The bytes the signature covers: the first two parts of the token with the "." between.
    package let signingInput: [UInt8]
    /// The signature as sent: 64 bytes, r‖s.
    package let signature: [UInt8]

    /// Whether `key` made the signature over ``signingInput``.
    package func isSigned(by key: ES256VerificationKey) -> Bool {
        key.isValidSignature(signature, for: signingInput)
    }
}
