/// One entry of the feedback service: a device that stopped accepting notifications.
public struct FeedbackTuple: Hashable, Sendable, CustomStringConvertible {
    /// When the device stopped accepting notifications, in UNIX seconds (UTC).
    public let time: UInt32
    /// The device token.
    public let token: [UInt8]

    /// Creates a tuple.
    public init(time: UInt32, token: [UInt8]) {
        self.time = time
        self.token = token
    }

    /// `1700000000 <hex token>`.
    public var description: String { "\(time) \(hexString(token))" }
}

/// Decodes the feedback service's `time u32 | tokenLen u16 | token` tuples from reads of
/// any size, by their length field.
public struct FeedbackDecoder: Sendable {
    /// The longest token accepted; a longer length field is rejected before anything is
    /// buffered for it. Apple's tokens were 32 bytes and were announced to grow up to 100.
    public let maxTokenLength: Int
    private var input = InputBuffer()
    private var failure: WireError?

    /// A decoder accepting tokens of 1 to `maxTokenLength` bytes (at most 65,535).
    public init(maxTokenLength: Int = 100) {
        precondition((1...0xFFFF).contains(maxTokenLength), "maxTokenLength must be 1...65535")
        self.maxTokenLength = maxTokenLength
    }

    /// Bytes fed and not yet decoded: a partial tuple waiting for the rest.
    public var bufferedByteCount: Int { input.available }

    /// Adds bytes read from the feedback service.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        input.append(bytes)
    }

    /// Adds bytes read from the feedback service.
    public mutating func feed(_ bytes: [UInt8]) {
        input.append(bytes)
    }

    /// The next whole tuple, or `nil` until one is there.
    /// - Throws: ``WireError/Code/tokenLength`` for a token length of zero or above
    ///   ``maxTokenLength``; the decoder then keeps throwing.
    public mutating func next() throws(WireError) -> FeedbackTuple? {
        if let failure { throw failure }
        guard input.available >= 6 else { return nil }
        let tokenLength = Int(input.u16(at: 4))
        guard tokenLength >= 1, tokenLength <= maxTokenLength else {
            let error = WireError.tokenLength(tokenLength, limit: maxTokenLength)
            failure = error
            throw error
        }
        guard input.available >= 6 + tokenLength else { return nil }
        let tuple = FeedbackTuple(time: input.u32(at: 0), token: input.copy(at: 6, count: tokenLength))
        input.consume(6 + tokenLength)
        return tuple
    }

    /// Call when the service closed the connection: returns how many bytes of a partial
    /// tuple were left over (and discards them, as node-apn did), 0 when the stream ended
    /// cleanly on a tuple boundary.
    public mutating func finish() -> Int {
        let leftover = input.available
        input.consume(leftover)
        return leftover
    }
}
