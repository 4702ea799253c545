import Foundation

/// One JSON part of a compact JWS (the header or the claims set): base64url-decoded and
/// parsed as a JSON object, with typed access to its members.
struct JSONWebTokenPart {
    private let members: [String: Any]

    /// Decodes `text`; `name` ("header", "claims set") goes into the error.
    init(_ text: Substring, _ name: String) throws(JSONWebTokenError) {
        guard let bytes = Base64URL.decode(text) else { throw .malformed("the \(name) is not base64url") }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw .malformed("the \(name) is not JSON")
        }
        guard let members = parsed as? [String: Any] else { throw .malformed("the \(name) is not a JSON object") }
        self.members = members
    }

    /// The member `name`, which must be a string.
    func string(_ name: String) throws(JSONWebTokenError) -> String {
        guard let value = members[name] else { throw .missingClaim(name) }
        guard let text = value as? String else { throw .invalidClaim(name) }
        return text
    }

    /// The member `name`, which must be an integer from 0 to `Int64.max` written without a
    /// fraction or exponent (`true`, `1.0` and `1e3` are refused).
    func seconds(_ name: String) throws(JSONWebTokenError) -> Int64 {
        guard let value = members[name] else { throw .missingClaim(name) }
        // JSONSerialization hands integers over as NSNumbers of a signed integer type; a
        // Bool, a fraction or exponent, and anything beyond Int64 come as other types.
        guard let number = value as? NSNumber, !(number is NSDecimalNumber),
            ["s", "i", "l", "q"].contains(String(cString: number.objCType)), number.int64Value >= 0
        else { throw .invalidClaim(name) }
        return number.int64Value
    }
}
