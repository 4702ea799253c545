extension HTTP2Error {
    /// What failed. Compare with the static values (`error.kind == .bodyTooLarge`); new kinds
    /// may be added in later versions.
    package struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            // Local: the call was invalid.
            case invalidArgument = "invalid argument"
            case invalidHeader = "invalid header"
            case wrongRole = "wrong role"
            case streamClosed = "stream closed"
            case sessionClosing = "session closing"
            case streamIDsExhausted = "stream IDs exhausted"
            // Remote: the peer's bytes were invalid or abusive.
            case badPreface = "bad connection preface"
            case protocolViolation = "protocol violation"
            case flood
            case headerListTooLarge = "header list too large"
            case bodyTooLarge = "body too large"
            // Neither: nghttp2 itself failed (out of memory).
            case library = "library failure"
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A header field name or value that HTTP/2 cannot carry (an uppercase or empty
        /// name, a CR, LF or NUL in a value), or a missing pseudo-header.
        package static let invalidHeader = Kind(.invalidHeader)
        /// An argument nghttp2 refused, e.g. a last-stream-id of our own stream in a GOAWAY,
        /// or GOAWAY debug data larger than a frame.
        package static let invalidArgument = Kind(.invalidArgument)
        /// A client call on a server session or the reverse (`submitRequest` on a server).
        package static let wrongRole = Kind(.wrongRole)
        /// No open stream has this id: it was never opened, or it has closed (the peer may
        /// have reset it before the response was submitted; its ``HTTP2Event/streamClosed(streamID:errorCode:)``
        /// is then among the events).
        package static let streamClosed = Kind(.streamClosed)
        /// The session is ending (a GOAWAY was sent or received, or it was terminated), so no
        /// new stream can start; open a new connection.
        package static let sessionClosing = Kind(.sessionClosing)
        /// A client used all 2³⁰ stream ids of the connection; open a new connection.
        package static let streamIDsExhausted = Kind(.streamIDsExhausted)
        /// A server received something other than the client connection preface.
        package static let badPreface = Kind(.badPreface)
        /// The peer broke HTTP/2 in a way that ends the connection (a connection error,
        /// RFC 9113 §5.4.1); a GOAWAY saying so is queued.
        package static let protocolViolation = Kind(.protocolViolation)
        /// The peer flooded us with frames we must answer (PING, SETTINGS, RST_STREAM, …)
        /// faster than it read the answers, or with too many CONTINUATION frames.
        package static let flood = Kind(.flood)
        /// A stream's header list exceeded ``HTTP2Session/Configuration/maxHeaderListSize``;
        /// the stream was reset, the connection goes on.
        package static let headerListTooLarge = Kind(.headerListTooLarge)
        /// A stream's body exceeded ``HTTP2Session/Configuration/maxBodySize``; the stream
        /// was reset, the connection goes on.
        package static let bodyTooLarge = Kind(.bodyTooLarge)
        /// nghttp2 failed for a reason of its own (out of memory).
        package static let library = Kind(.library)

        /// Whether the peer, not the caller, caused errors of this kind.
        package var isRemote: Bool {
            switch base {
            case .badPreface, .protocolViolation, .flood, .headerListTooLarge, .bodyTooLarge: true
            default: false
            }
        }

        /// The kind's name, e.g. "body too large".
        package var description: String { base.rawValue }
    }
}
