/// The gateway's error response: `08 | status u8 | identifier u32`.
public struct ErrorResponse: Hashable, Sendable, CustomStringConvertible {
    /// The status byte as sent; unknown values are kept (``StatusCode/isKnown`` is false).
    public let status: StatusCode
    /// The identifier of the rejected notification, or for status 10 (shutdown) of the
    /// last notification that succeeded; 0 when the gateway could not tell.
    public let identifier: UInt32

    /// Creates a response.
    public init(status: StatusCode, identifier: UInt32) {
        self.status = status
        self.identifier = identifier
    }

    /// `status 8 (invalid token) for identifier 42`.
    public var description: String { "status \(status) for identifier \(identifier)" }
}

/// Reassembles the gateway's 6-byte error responses from reads of any size.
///
/// node-apn 1.x parsed each read on its own and lost responses split across reads or glued
/// to other bytes; this decoder keeps what it was fed until a whole response is there.
public struct ErrorResponseDecoder: Sendable {
    private var input = InputBuffer()
    private var failure: WireError?

    /// A decoder with nothing fed.
    public init() {}

    /// Bytes fed and not yet decoded: a partial response waiting for the rest.
    public var bufferedByteCount: Int { input.available }

    /// Adds bytes read from the gateway.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        input.append(bytes)
    }

    /// Adds bytes read from the gateway.
    public mutating func feed(_ bytes: [UInt8]) {
        input.append(bytes)
    }

    /// The next whole response, or `nil` until six bytes are there.
    /// - Throws: ``WireError/Code/unexpectedCommand`` when a response does not start with
    ///   byte 8; the decoder then keeps throwing, since the stream cannot be resynchronised.
    public mutating func next() throws(WireError) -> ErrorResponse? {
        if let failure { throw failure }
        guard input.available >= 1 else { return nil }
        let command = input.u8(at: 0)
        guard command == Command.errorResponseByte else {
            let error = WireError.unexpectedCommand(command)
            failure = error
            throw error
        }
        guard input.available >= Command.errorResponseLength else { return nil }
        let response = ErrorResponse(status: StatusCode(wire: input.u8(at: 1)), identifier: input.u32(at: 2))
        input.consume(Command.errorResponseLength)
        return response
    }
}
