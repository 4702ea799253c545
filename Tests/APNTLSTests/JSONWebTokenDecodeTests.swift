import APNTestSupport
import APNTestTraits
import APNTLS
import Testing

/// Tokens come from untrusted peers: every refusal has its code, and no input, whole or
/// cut short at any byte, crashes the decoder.
@Suite(.threadPerTest) struct JSONWebTokenDecodeTests {
    static let header = #"{"alg":"ES256","kid":"ABC123DEFG"}"#
    static let claims = #"{"iss":"DEF123GHIJ","iat":1437179036}"#
    static let signature = [UInt8](repeating: 7, count: 64)

    /// A token with these parts, each base64url-encoded.
    static func token(header: String = header, claims: String = claims, signature: [UInt8] = signature) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + "." + Base64URL.encode(signature)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let token: String
        let code: JSONWebTokenError.Code
        var detail: String? = nil
        var testDescription: String { name }
    }

    static let valid = token()
    static let segments = valid.split(separator: ".").map(String.init)

    static let refusals: [Refusal] = [
        Refusal(name: "empty", token: "", code: .malformed),
        Refusal(name: "garbage", token: "garbage", code: .malformed),
        Refusal(name: "three dots", token: "...", code: .malformed),
        Refusal(name: "two parts", token: segments[0] + "." + segments[1], code: .malformed),
        Refusal(name: "four parts", token: valid + "." + segments[2], code: .malformed),
        Refusal(name: "trailing dot", token: valid + ".", code: .malformed),
        Refusal(name: "padded header", token: segments[0] + "=." + segments[1] + "." + segments[2], code: .malformed),
        Refusal(name: "base64 header", token: "eyJ+" + segments[0].dropFirst(4) + "." + segments[1] + "." + segments[2], code: .malformed),
        Refusal(name: "padded signature", token: valid + "==", code: .malformed),
        Refusal(name: "header not JSON", token: token(header: "{alg:ES256}"), code: .malformed),
        Refusal(name: "header an array", token: token(header: #"["ES256"]"#), code: .malformed),
        Refusal(name: "header a string", token: token(header: #""ES256""#), code: .malformed),
        Refusal(name: "header nested too deeply", token: token(header: String(repeating: "[", count: 600)), code: .malformed),
        Refusal(name: "claims not JSON", token: token(claims: "iss=DEF123GHIJ"), code: .malformed),
        Refusal(name: "claims empty", token: token(claims: ""), code: .malformed),
        Refusal(name: "no signature", token: token(signature: []), code: .malformed),
        Refusal(name: "63-byte signature", token: token(signature: Array(signature.dropLast())), code: .malformed),
        Refusal(name: "DER signature", token: token(signature: [0x30, 0x44, 0x02, 0x20] + signature[..<32] + [0x02, 0x20] + signature[32...]), code: .malformed),
        Refusal(name: "HS256", token: token(header: #"{"alg":"HS256","kid":"ABC123DEFG"}"#), code: .unsupportedAlgorithm, detail: "HS256"),
        Refusal(name: "none", token: token(header: #"{"alg":"none","kid":"ABC123DEFG"}"#), code: .unsupportedAlgorithm, detail: "none"),
        Refusal(name: "es256", token: token(header: #"{"alg":"es256","kid":"ABC123DEFG"}"#), code: .unsupportedAlgorithm, detail: "es256"),
        Refusal(name: "alg missing", token: token(header: #"{"kid":"ABC123DEFG"}"#), code: .missingClaim, detail: "alg"),
        Refusal(name: "alg a number", token: token(header: #"{"alg":256,"kid":"ABC123DEFG"}"#), code: .invalidClaim, detail: "alg"),
        Refusal(name: "kid missing", token: token(header: #"{"alg":"ES256"}"#), code: .missingClaim, detail: "kid"),
        Refusal(name: "kid null", token: token(header: #"{"alg":"ES256","kid":null}"#), code: .invalidClaim, detail: "kid"),
        Refusal(name: "iss missing", token: token(claims: #"{"iat":1437179036}"#), code: .missingClaim, detail: "iss"),
        Refusal(name: "iss a number", token: token(claims: #"{"iss":12,"iat":1437179036}"#), code: .invalidClaim, detail: "iss"),
        Refusal(name: "iat missing", token: token(claims: #"{"iss":"DEF123GHIJ"}"#), code: .missingClaim, detail: "iat"),
        Refusal(name: "iat a string", token: token(claims: #"{"iss":"DEF123GHIJ","iat":"1437179036"}"#), code: .invalidClaim, detail: "iat"),
        Refusal(name: "iat true", token: token(claims: #"{"iss":"DEF123GHIJ","iat":true}"#), code: .invalidClaim, detail: "iat"),
        Refusal(name: "iat a fraction", token: token(claims: #"{"iss":"DEF123GHIJ","iat":1437179036.5}"#), code: .invalidClaim, detail: "iat"),
        Refusal(name: "iat 1.0", token: token(claims: #"{"iss":"DEF123GHIJ","iat":1.0}"#), code: .invalidClaim, detail: "iat"),
        Refusal(name: "iat an exponent", token: token(claims: #"{"iss":"DEF123GHIJ","iat":1e9}"#), code: .invalidClaim, detail: "iat"),
        Refusal(name: "iat negative", token: token(claims: #"{"iss":"DEF123GHIJ","iat":-1}"#), code: .invalidClaim, detail: "iat"),
        Refusal(name: "iat beyond Int64", token: token(claims: #"{"iss":"DEF123GHIJ","iat":9223372036854775808}"#), code: .invalidClaim, detail: "iat"),
        Refusal(name: "iat far beyond Int64", token: token(claims: #"{"iss":"DEF123GHIJ","iat":1e400}"#), code: .malformed),
        Refusal(name: "oversized", token: String(repeating: "A", count: JSONWebToken.maximumLength + 1), code: .tooLong),
        Refusal(name: "oversized but well formed", token: token(claims: #"{"iss":"DEF123GHIJ","iat":1,"pad":""# + String(repeating: "x", count: 7000) + #""}"#), code: .tooLong),
    ]

    @Test(arguments: refusals)
    func refuses(_ refusal: Refusal) {
        let error = #expect(throws: JSONWebTokenError.self) { try JSONWebToken.decode(refusal.token) }
        #expect(error?.code == refusal.code, "\(String(describing: error))")
        if let detail = refusal.detail {
            #expect(error?.detail == detail)
        }
    }

    @Test(arguments: refusals)
    func everyTruncationOfARefusalIsHandled(_ refusal: Refusal) {
        let bytes = Array(refusal.token.utf8)
        for length in 0..<bytes.count {
            _ = try? JSONWebToken.decode(String(decoding: bytes.prefix(length), as: UTF8.self))
        }
    }

    @Test func everyTruncationOfAValidTokenIsRefused() throws {
        let token = try JSONWebToken.sign(JSONWebTokenTests.claims, with: ES256SigningKey.generate())
        #expect(throws: Never.self) { try JSONWebToken.decode(token) }
        let bytes = Array(token.utf8)
        for length in 0..<bytes.count {
            #expect(throws: JSONWebTokenError.self, "cut at \(length)") {
                try JSONWebToken.decode(String(decoding: bytes.prefix(length), as: UTF8.self))
            }
        }
    }

    @Test func theLongestTokenDecodesAndOneByteMoreDoesNot() throws {
        func padded(header headerPad: Int, claims claimsPad: Int) -> String {
            Self.token(
                header: #"{"alg":"ES256","kid":"ABC123DEFG","x":""# + String(repeating: "x", count: headerPad) + #""}"#,
                claims: #"{"iss":"DEF123GHIJ","iat":1,"pad":""# + String(repeating: "x", count: claimsPad) + #""}"#)
        }
        // Each padding byte adds 4/3 of a character; base64url lengths skip one residue
        // modulo 4, which a second padded part covers.
        let estimate = (JSONWebToken.maximumLength - padded(header: 0, claims: 0).utf8.count) * 3 / 4
        let candidates = (0..<3).flatMap { header in
            (estimate - 4...estimate + 4).map { padded(header: header, claims: $0) }
        }
        let token = try #require(candidates.first { $0.utf8.count == JSONWebToken.maximumLength })
        #expect(try JSONWebToken.decode(token).claims.issuedAt == 1)
        let error = #expect(throws: JSONWebTokenError.self) { try JSONWebToken.decode(token + "A") }
        #expect(error?.code == .tooLong)
    }

    @Test func otherHeaderParametersAndClaimsAreIgnored() throws {
        let decoded = try JSONWebToken.decode(
            Self.token(
                header: #"{"typ":"JWT","alg":"ES256","kid":"ABC123DEFG"}"#,
                claims: #"{"iat":1437179036,"iss":"DEF123GHIJ","exp":null}"#))
        #expect(decoded.claims == JSONWebTokenTests.claims)
        #expect(decoded.signature == Self.signature)
    }
}
