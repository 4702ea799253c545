import APNWire

/// A device to push to, identified by its token.
///
/// As in node-apn 1.3.6 and later, a token given as text may contain any non-hex
/// characters (spaces, the `<` `>` of `-[NSData description]`, dashes); they are dropped
/// and the rest is decoded as hex, in either case. ``description`` gives lowercase hex.
///
/// **Length check, on by default.** Every token Apple issued for the binary interface was
/// 32 bytes, and the gateway answered a token of any other length with status 5 or 8 and
/// closed the connection, taking the notifications written after it along. Catching the
/// mistake here is cheaper. Pass `validatesLength: false` for tokens of other lengths,
/// e.g. ones replayed from a feedback service or a test gateway. node-apn did not check.
public struct Device: Hashable, Sendable, CustomStringConvertible {
    /// The length of every real device token, in bytes.
    public static let tokenLength = 32

    /// The token's bytes.
    public let token: [UInt8]

    /// Decodes a token from hex text.
    ///
    /// - Parameters:
    ///   - hex: The token as hex digits. Every non-hex character is ignored.
    ///   - validatesLength: Whether to require exactly ``tokenLength`` bytes (default `true`).
    /// - Throws: ``APNError/Code/invalidToken`` (status 8) when no hex digit remains, when
    ///   the number of hex digits is odd, or when the length check fails.
    public init(_ hex: String, validatesLength: Bool = true) throws(APNError) {
        // Hex digits are ASCII, so every byte of a multi-byte UTF-8 sequence is dropped.
        let digits = hex.utf8.filter { hexValue($0) != nil }
        if digits.isEmpty {
            throw .invalidToken("device token contains no hex digits (got \(Self.quote(hex)))")
        }
        guard let bytes = bytes(fromHexDigits: digits) else {
            throw .invalidToken(
                "device token has an odd number of hex digits (\(digits.count)); "
                    + "each byte takes two, so a digit is missing or extra")
        }
        try self.init(token: bytes, validatesLength: validatesLength)
    }

    /// Wraps a token's raw bytes.
    ///
    /// - Parameters:
    ///   - bytes: The token. Arrays are values in Swift, so later changes to the caller's
    ///     array do not affect the device (node-apn had to copy its Buffer for this).
    ///   - validatesLength: Whether to require exactly ``tokenLength`` bytes (default `true`).
    /// - Throws: ``APNError/Code/invalidToken`` (status 8) when `bytes` is empty or the
    ///   length check fails.
    public init(token bytes: [UInt8], validatesLength: Bool = true) throws(APNError) {
        if bytes.isEmpty {
            throw .invalidToken("device token is empty")
        }
        if validatesLength && bytes.count != Self.tokenLength {
            throw .invalidToken(
                "device token must be \(Self.tokenLength) bytes, got \(bytes.count) "
                    + "(set validatesLength: false to allow other lengths)")
        }
        self.token = bytes
    }

    /// Wraps a token a decoder already checked (non-empty, bounded length).
    package init(unvalidated bytes: [UInt8]) {
        precondition(!bytes.isEmpty, "a decoded token is never empty")
        self.token = bytes
    }

    /// The token as lowercase hex, two digits per byte.
    public var hexString: String {
        APNWire.hexString(token)
    }

    /// The token as lowercase hex, as node-apn's `Device.toString()`.
    public var description: String {
        hexString
    }

    /// Quotes user input for an error message, cut short when long.
    private static func quote(_ text: String) -> String {
        let limit = 80
        if text.count <= limit {
            return "\"\(text)\""
        }
        return "\"\(text.prefix(limit))…\" (\(text.count) characters)"
    }
}
