import APNWire

/// A device to push to, identified by its token.
///
/// As in node-apn 1.3.6 and later, a token given as text may contain any non-hex
/// characters (spaces, the `<` `>` of `-[NSData description]`, dashes); they are dropped
/// and the rest is decoded as hex, in either case. ``description`` gives lowercase hex.
///
/// **Length check, on by default.** Apple's device tokens are of variable length: its
/// HTTP/2 API takes any whole number of bytes, and ``tokenLengths`` (1 to 100) are
/// accepted. The binary interface carries 32-byte tokens only (``binaryTokenLength``): a
/// ``Connection`` refuses a device of another length with status 8 before writing it, as
/// the gateway answered one with status 5 or 8 and closed the connection, taking the
/// notifications written after it along. Pass `validatesLength: false` for tokens of any
/// length, e.g. ones replayed from a feedback service or a test gateway (a ``Connection``
/// still refuses all but 32 bytes). node-apn did not check.
public struct Device: Hashable, Sendable, CustomStringConvertible {
    /// The lengths of the device tokens accepted (Apple's HTTP/2 API), in bytes.
    public static let tokenLengths: ClosedRange<Int> = 1...100
    /// The length of every token the binary interface carries, in bytes.
    public static let binaryTokenLength = 32

    /// The token's bytes.
    public let token: [UInt8]

    /// Decodes a token from hex text.
    ///
    /// - Parameters:
    ///   - hex: The token as hex digits. Every non-hex character is ignored.
    ///   - validatesLength: Whether to require a length in ``tokenLengths`` (default `true`).
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
    ///   - validatesLength: Whether to require a length in ``tokenLengths`` (default `true`).
    /// - Throws: ``APNError/Code/invalidToken`` (status 8) when `bytes` is empty or the
    ///   length check fails.
    public init(token bytes: [UInt8], validatesLength: Bool = true) throws(APNError) {
        if bytes.isEmpty {
            throw .invalidToken("device token is empty")
        }
        if validatesLength && !Self.tokenLengths.contains(bytes.count) {
            throw .invalidToken(
                "device token must be \(Self.tokenLengths.lowerBound) to \(Self.tokenLengths.upperBound) bytes, "
                    + "got \(bytes.count) (set validatesLength: false to allow other lengths)")
        }
        self.token = bytes
    }

    /// Why the binary interface cannot carry a token of `length` bytes (any but
    /// ``binaryTokenLength``): status 8, invalid token.
    package static func binaryRefusal(length: Int) -> APNError {
        .invalidToken(
            "device token is \(length) bytes; the binary interface carries \(binaryTokenLength)-byte tokens only "
                + "(Apple's HTTP/2 API takes \(tokenLengths.lowerBound) to \(tokenLengths.upperBound))")
    }

    /// Wraps a token a decoder already checked (non-empty, bounded length).
    @_spi(APNBridge) public init(unvalidated bytes: [UInt8]) {
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
