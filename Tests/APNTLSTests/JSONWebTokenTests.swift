import APNTestSupport
import APNTestTraits
import APNTLS
import Testing

/// Provider tokens: the exact bytes signed, the round trip through decode, and the
/// signature check.
@Suite(.threadPerTest) struct JSONWebTokenTests {
    /// The values of Apple's documentation example.
    static let claims = ProviderTokenClaims(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: 1_437_179_036)

    @Test func headerAndClaimsAreTheExactSegments() throws {
        let token = try JSONWebToken.sign(Self.claims, with: ES256SigningKey.generate())
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        // {"alg":"ES256","kid":"ABC123DEFG"}
        #expect(parts[0] == "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ")
        // {"iss":"DEF123GHIJ","iat":1437179036}
        #expect(parts[1] == "eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNDM3MTc5MDM2fQ")
        #expect(parts[2].count == 86, "64 bytes, unpadded")
        #expect(Base64URL.decode(parts[2])?.count == 64)
    }

    @Test func signDecodeVerify() throws {
        let key = try ES256SigningKey.generate()
        let token = try JSONWebToken.sign(Self.claims, with: key)
        let decoded = try JSONWebToken.decode(token)
        #expect(decoded.algorithm == "ES256")
        #expect(decoded.claims == Self.claims)
        let parts = token.split(separator: ".")
        #expect(decoded.signingInput == Array((parts[0] + "." + parts[1]).utf8))
        #expect(decoded.signature.count == 64)
        #expect(decoded.isSigned(by: key.verificationKey))
        #expect(!decoded.isSigned(by: try ES256SigningKey.generate().verificationKey))
    }

    @Test func stringsAreEscapedForJSON() throws {
        let claims = ProviderTokenClaims(keyID: "a\"b\\c\n\u{1}é/", teamID: "\t\u{7F}</script>", issuedAt: 0)
        let token = try JSONWebToken.sign(claims, with: ES256SigningKey.generate())
        let parts = token.split(separator: ".")
        let header = try #require(Base64URL.decode(parts[0]))
        let payload = try #require(Base64URL.decode(parts[1]))
        #expect(header == Array(#"{"alg":"ES256","kid":"a\"b\\c\n\u0001é/"}"#.utf8))
        #expect(payload == Array(#"{"iss":"\t\#u{7F}</script>","iat":0}"#.utf8))
        #expect(try JSONWebToken.decode(token).claims == claims)
    }

    @Test func theRFC7515TokenIsNotAProviderToken() {
        // Its signature is genuine, but its header has no kid.
        let error = #expect(throws: JSONWebTokenError.self) { try JSONWebToken.decode(RFC7515A3.token) }
        #expect(error?.code == .missingClaim)
        #expect(error?.detail == "kid")
    }

    @Test func noSingleCharacterChangeVerifies() throws {
        let key = try ES256SigningKey.generate()
        let token = Array(try JSONWebToken.sign(Self.claims, with: key).utf8)
        for index in token.indices {
            for replacement in ["A", "B", "."].map({ UInt8(ascii: $0) }) where replacement != token[index] {
                var tampered = token
                tampered[index] = replacement
                let text = String(decoding: tampered, as: UTF8.self)
                if let decoded = try? JSONWebToken.decode(text) {
                    #expect(!decoded.isSigned(by: key.verificationKey), "byte \(index) → \(replacement)")
                }
            }
        }
    }

    @Test func oneKeySignsOnManyThreadsAtOnce() async throws {
        let key = try ES256SigningKey.generate()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for issuedAt in 0..<32 {
                group.addTask {
                    try JSONWebToken.sign(
                        ProviderTokenClaims(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: Int64(issuedAt)), with: key)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens.count == 32)
        for token in tokens {
            #expect(try JSONWebToken.decode(token).isSigned(by: key.verificationKey))
        }
    }
}
