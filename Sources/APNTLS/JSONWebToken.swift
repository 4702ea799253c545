import APNSupport
/// JSON Web Tokens (RFC 7519) in the one shape APNs uses for provider authentication:
/// compact JWS signed with ES256, header `{"alg":"ES256","kid":KEY ID}`, claims
/// `{"iss":TEAM ID,"iat":SECONDS}`.
package enum JSONWebToken {
    /// The longest token ``decode(_:)`` reads, in bytes. A provider token is about 200
    /// bytes; the bound keeps a peer's token from costing more than a glance.
    package static let maximumLength = 8192

    /// A signed provider token: `base64url(header) "." base64url(claims) "." base64url(r‖s)`,
    /// with compact JSON in exactly the key order shown in ``JSONWebToken``.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/signing`` when OpenSSL fails to sign.
    package static func sign(_ claims: ProviderTokenClaims, with key: ES256SigningKey) throws(TLSError) -> String {
        let header = #"{"alg":"ES256","kid":"# + JSONStringEscaping.quoted(claims.keyID) + "}"
        let payload = #"{"iss":"# + JSONStringEscaping.quoted(claims.teamID) + #","iat":"# + String(claims.issuedAt) + "}"
        let signingInput = Base64URL.encode(header.utf8) + "." + Base64URL.encode(payload.utf8)
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Reads a provider token without trusting it: its form, algorithm and claims are
    /// checked here, its signature by ``DecodedJSONWebToken/isSigned(by:)``. Other header
    /// parameters and claims are ignored.
    ///
    /// - Throws: ``JSONWebTokenError`` saying why the token is refused: longer than
    ///   ``maximumLength``, malformed, an `alg` other than "ES256", a missing or mistyped
    ///   `alg`, `kid`, `iss` or `iat`.
    package static func decode(_ token: String) throws(JSONWebTokenError) -> DecodedJSONWebToken {
        let length = token.utf8.count
        guard length <= maximumLength else { throw .tooLong(length, limit: maximumLength) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .malformed("\(parts.count) part\(parts.count == 1 ? "" : "s") separated by \".\", not 3")
        }
        let header = try JSONWebTokenPart(parts[0], "header")
        let algorithm = try header.string("alg")
        guard algorithm == "ES256" else { throw .unsupportedAlgorithm(algorithm) }
        let keyID = try header.string("kid")
        let claims = try JSONWebTokenPart(parts[1], "claims set")
        let teamID = try claims.string("iss")
        let issuedAt = try claims.seconds("iat")
        guard let signature = Base64URL.decode(parts[2]) else { throw .malformed("the signature is not base64url") }
        guard signature.count == 2 * ECDSASignatureFormat.coordinateSize else {
            throw .malformed("the signature is \(signature.count) bytes; ES256 signatures are 64")
        }
        return DecodedJSONWebToken(
            algorithm: algorithm,
            claims: ProviderTokenClaims(keyID: keyID, teamID: teamID, issuedAt: issuedAt),
            signingInput: Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)),
            signature: signature)
    }
}
