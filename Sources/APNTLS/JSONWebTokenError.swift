/// Why ``JSONWebToken/decode(_:)`` refused a token: it does not have the form of an APNs
/// provider token. Tokens come from peers, so this is a remote error: nothing in the
/// caller's own configuration is in question.
///
/// A struct rather than an enum, so that new kinds can be added without breaking code that
/// switches over them: compare ``code`` with the `static let` values of
/// ``JSONWebTokenError/Code``.
package struct JSONWebTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of refusal it is. Compare with the static values
    /// (`error.code == .unsupportedAlgorithm`).
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case malformed
            case tooLong = "too long"
            case unsupportedAlgorithm = "unsupported algorithm"
            case missingClaim = "missing claim"
            case invalidClaim = "invalid claim"
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// Not a compact JWS: not three parts separated by ".", a part that is not
        /// base64url, a header or claims set that is not a JSON object, or a signature that
        /// is not 64 bytes.
        package static let malformed = Code(.malformed)
        /// Longer than ``JSONWebToken/maximumLength``; refused before anything is parsed.
        package static let tooLong = Code(.tooLong)
        /// The header's `alg` is not "ES256" (e.g. "HS256" or "none"); ``JSONWebTokenError/detail``
        /// holds it.
        package static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// A required header parameter or claim (`alg`, `kid`, `iss`, `iat`) is absent;
        /// ``JSONWebTokenError/detail`` names it.
        package static let missingClaim = Code(.missingClaim)
        /// A header parameter or claim has the wrong type or an impossible value (an `iat`
        /// that is not a non-negative integer, say); ``JSONWebTokenError/detail`` names it.
        package static let invalidClaim = Code(.invalidClaim)

        /// The code's name, e.g. "missing claim".
        package var description: String { base.rawValue }
    }

    /// What kind of refusal it is.
    package let code: Code
    /// The algorithm for ``Code/unsupportedAlgorithm``, the header parameter or claim for
    /// ``Code/missingClaim`` and ``Code/invalidClaim``, what is wrong for the others.
    package let detail: String

    /// One line: the code and the detail, e.g. "JWT refused (missing claim): kid".
    package var description: String { "JWT refused (\(code)): \(detail)" }

    static func malformed(_ reason: String) -> JSONWebTokenError {
        JSONWebTokenError(code: .malformed, detail: reason)
    }

    static func tooLong(_ length: Int, limit: Int) -> JSONWebTokenError {
        JSONWebTokenError(code: .tooLong, detail: "\(length) bytes, more than \(limit)")
    }

    static func unsupportedAlgorithm(_ algorithm: String) -> JSONWebTokenError {
        JSONWebTokenError(code: .unsupportedAlgorithm, detail: algorithm)
    }

    static func missingClaim(_ name: String) -> JSONWebTokenError {
        JSONWebTokenError(code: .missingClaim, detail: name)
    }

    static func invalidClaim(_ name: String) -> JSONWebTokenError {
        JSONWebTokenError(code: .invalidClaim, detail: name)
    }
}
