/// The peer sent bytes that do not follow the protocol (a remote error: what we sent is
/// not in question). Thrown by the client-side decoders; the gateway-side decoder answers
/// with a ``Rejection`` instead, since rejecting is a gateway's normal business.
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of violation it was.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case unexpectedCommand, tokenLength
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A message started with a command byte this decoder does not read
        /// (the error response must start with 8).
        public static let unexpectedCommand = Code(.unexpectedCommand)
        /// A length field announced a token outside the decoder's bounds
        /// (zero, or above the limit fixed at construction).
        public static let tokenLength = Code(.tokenLength)

        /// The name of the code.
        public var description: String {
            switch base {
            case .unexpectedCommand: "unexpectedCommand"
            case .tokenLength: "tokenLength"
            }
        }
    }

    /// What kind of violation it was.
    public let code: Code
    /// The offending value: the command byte, or the announced token length.
    public let value: Int
    /// The bound that was crossed, where there is one.
    public let limit: Int?

    /// A sentence saying what the peer sent.
    public var description: String {
        switch code {
        case .unexpectedCommand:
            "expected an error response (command 8), got command \(value)"
        default:
            "token length \(value) outside 1...\(limit ?? 0)"
        }
    }

    static func unexpectedCommand(_ byte: UInt8) -> WireError {
        WireError(code: .unexpectedCommand, value: Int(byte), limit: nil)
    }

    static func tokenLength(_ length: Int, limit: Int) -> WireError {
        WireError(code: .tokenLength, value: length, limit: limit)
    }
}
