public import APNWire

extension MockGateway {
    /// The misbehaviour a ``MockGateway`` injects, on top of the validation Apple's gateway
    /// did. Set it in ``Configuration/faults`` or change it while running with
    /// ``MockGateway/setFaults(_:)`` / ``MockGateway/updateFaults(_:)``; each notification
    /// is judged against the faults current when it is decoded.
    ///
    /// Counting: notifications are numbered as they are decoded, overall (1, 2, … across
    /// every connection) and per connection (1, 2, … on each). The "after N" faults count
    /// *accepted* notifications overall (``MockGateway/records`` `.count`), fire once when
    /// the N-th is accepted, and then clear themselves so a reconnecting client gets
    /// through. Rejections by token, identifier or number apply whenever they match.
    ///
    /// Statuses above 255 cannot be sent in the one status byte: they go out as 255.
    public struct Faults: Sendable, Hashable {
        /// Tokens to refuse, with the status to answer (8, invalid token, by default).
        public var rejectedTokens: [[UInt8]: StatusCode]
        /// Identifiers to refuse (commands 1 and 2), with the status to answer.
        public var rejectedIdentifiers: [UInt32: StatusCode]
        /// Refuse the N-th notification decoded overall (1-based), with the status.
        public var rejectedOrdinals: [Int: StatusCode]
        /// Refuse the N-th notification decoded on every connection (1-based), with the status.
        public var rejectedOrdinalsOnEachConnection: [Int: StatusCode]
        /// After the N-th accepted notification overall, answer status 10 (shutdown)
        /// carrying that notification's identifier — the last good one — and close.
        public var shutdownAfter: Int?
        /// After the N-th accepted notification overall, close without an error response.
        public var closeAfter: Int?
        /// After the N-th accepted notification overall, close with a TCP reset.
        public var resetAfter: Int?
        /// After the N-th accepted notification overall, stop reading that connection's
        /// socket for ``stallDuration``, then go on reading, decoding and recording as
        /// before. Meanwhile nothing more is decoded or recorded on that connection and,
        /// once the kernel's buffers fill, the client's writes block (`.wantWrite`). The
        /// stall waits on a deadline, not a sleep: ``MockGateway/stop(timeout:)`` ends it.
        public var stallReadsAfter: Int?
        /// How long a ``stallReadsAfter`` stall lasts; 1 second by default.
        public var stallDuration: Duration
        /// Send identifier 0 in every error response, as Apple did when it could not tell
        /// which notification was bad.
        public var zeroIdentifierInErrors: Bool
        /// Wait this long before writing an error response (the connection reads and
        /// records nothing meanwhile).
        public var errorResponseDelay: Duration
        /// Write each error response in two TLS records (2 bytes, then 4).
        public var splitsErrorResponse: Bool
        /// Write feedback tuples in TLS records of at most this many bytes; `nil` writes
        /// them all at once.
        public var feedbackWriteSize: Int?

        /// No faults: the gateway behaves as Apple's did.
        public init() {
            rejectedTokens = [:]
            rejectedIdentifiers = [:]
            rejectedOrdinals = [:]
            rejectedOrdinalsOnEachConnection = [:]
            shutdownAfter = nil
            closeAfter = nil
            resetAfter = nil
            stallReadsAfter = nil
            stallDuration = .seconds(1)
            zeroIdentifierInErrors = false
            errorResponseDelay = .zero
            splitsErrorResponse = false
            feedbackWriteSize = nil
        }

        /// Stops reading the connection that brings the `count`-th accepted notification
        /// overall for `duration`, then resumes: sets ``stallReadsAfter`` and
        /// ``stallDuration``.
        public mutating func stallReads(afterAccepting count: Int, for duration: Duration = .seconds(1)) {
            stallReadsAfter = count
            stallDuration = duration
        }

        /// Refuses notifications for `token` with `status`.
        public mutating func rejectToken(_ token: [UInt8], status: StatusCode = .invalidToken) {
            rejectedTokens[token] = status
        }

        /// Refuses notifications for the token written in hex (either case) with `status`.
        ///
        /// - Throws: ``InvalidHexError`` when `hex` is not an even number of hex digits.
        public mutating func rejectToken(hex: String, status: StatusCode = .invalidToken) throws(InvalidHexError) {
            guard let token = bytes(fromHex: hex) else { throw InvalidHexError(text: hex) }
            rejectToken(token, status: status)
        }

        /// Refuses notifications carrying `identifier` with `status`.
        public mutating func rejectIdentifier(_ identifier: UInt32, status: StatusCode = .invalidToken) {
            rejectedIdentifiers[identifier] = status
        }

        /// Refuses the `ordinal`-th notification decoded overall (1-based) with `status`.
        public mutating func rejectNotification(number ordinal: Int, status: StatusCode = .invalidToken) {
            rejectedOrdinals[ordinal] = status
        }

        /// Refuses the `ordinal`-th notification decoded on each connection with `status`.
        public mutating func rejectNotificationOnEachConnection(number ordinal: Int, status: StatusCode = .invalidToken) {
            rejectedOrdinalsOnEachConnection[ordinal] = status
        }
    }

    /// A token given in hex was not an even number of hex digits.
    public struct InvalidHexError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The text that was not hex.
        public let text: String

        /// An error for `text`.
        public init(text: String) {
            self.text = text
        }

        /// `not an even number of hex digits: "…"`.
        public var description: String { "not an even number of hex digits: \"\(text)\"" }
    }
}
