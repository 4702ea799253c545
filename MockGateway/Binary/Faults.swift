public import APNWire
import APNGatewayServer

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
    ///
    /// A remote gateway: ``latency``, ``readRate`` and ``errorResponseLag`` make each
    /// connection behave like Apple's gateway seen across a network, so a fast client
    /// writes many notifications after a bad one before its error response arrives (the
    /// in-flight window), or finds its writes blocked by a slow reader. Notifications are
    /// then *processed* — judged, recorded, counted for the "after N" faults — when the
    /// latency and the rate let the gateway get to them, not when they were read.
    /// Everything after a refused notification is still read and thrown away, never
    /// recorded (``RejectionRecord/discardedAfter`` counts it), as Apple did.
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
        /// Under ``latency`` the close comes when the N-th is processed, so the client has
        /// written more by then.
        public var closeAfter: Int?
        /// After the N-th accepted notification overall, close with a TCP reset (when the
        /// N-th is processed, like ``closeAfter``).
        public var resetAfter: Int?
        /// After every N-th accepted notification overall (N, 2N, 3N …), close without an
        /// error response: a gateway that drops connections now and then, for soak tests.
        public var closeEvery: Int?
        /// After every N-th accepted notification overall, close with a TCP reset.
        public var resetEvery: Int?
        /// After the N-th accepted notification overall, stop reading that connection's
        /// socket for ``stallDuration``, then end the stall as ``stallEnd`` says: by
        /// default go on reading, decoding and recording as before. Meanwhile nothing more
        /// is decoded or recorded on that connection and, once the kernel's buffers fill,
        /// the client's writes block (`.wantWrite`). The stall waits on a deadline, not a
        /// sleep, and costs no CPU: ``MockGateway/stop(timeout:)`` ends it at once.
        public var stallReadsAfter: Int?
        /// How long a ``stallReadsAfter`` stall lasts; 1 second by default.
        public var stallDuration: Duration
        /// How a ``stallReadsAfter`` stall ends: ``StallEnd/resume`` by default.
        public var stallEnd: StallEnd
        /// Send this identifier in every error response instead of the refused
        /// notification's (e.g. `0xDEADBEEF`, one the client never wrote); `nil` (the
        /// default) sends the real one. ``RejectionRecord/identifier`` keeps the real one.
        public var errorIdentifierOverride: UInt32?
        /// Wait this long before writing an error response, after ``errorResponseLag``
        /// and before ``latency``. The connection keeps reading meanwhile, and throws away
        /// what it reads: nothing after the refused notification is recorded.
        public var errorResponseDelay: Duration
        /// Write each error response in two TLS records (2 bytes, then 4). Ignored when
        /// ``errorResponseByteInterval`` is set.
        public var splitsErrorResponse: Bool
        /// Write each error response one byte per TLS record, this long apart (a trickling
        /// answer: the client sees it in 6 reads). Reading and discarding go on between
        /// the bytes. `nil` (the default) writes it at once.
        public var errorResponseByteInterval: Duration?
        /// After deciding to refuse a notification (or to answer status 10), read and throw
        /// away this many more notifications before answering — or answer once the client
        /// has sent nothing for ``errorResponseLagIdleTimeout``, so a client that stopped
        /// writing still gets its answer. 0 (the default) answers at once. After a
        /// refusal by validation the stream cannot be split into notifications any more,
        /// so only the idle timeout ends the lag.
        public var errorResponseLag: Int
        /// One-way network latency on every connection (`.zero` by default): bytes read
        /// are decoded and judged only this long after they arrived, and an error response
        /// is written this long after the decision. Meanwhile the connection keeps reading
        /// the socket, as the network keeps carrying the client's bytes, and holds what it
        /// read — up to ``latencyBufferLimit`` bytes, beyond which it stops reading until
        /// it has processed some (TCP backpressure then reaches the client). After a
        /// decision to refuse (or status 10), what arrives while the answer is on its way
        /// is read and thrown away.
        public var latency: Duration
        /// Notifications per second one connection processes; `nil` (the default) is
        /// unlimited. A token bucket holding up to 10 ms worth of notifications (at least
        /// one): when it is empty the connection stops reading its socket until a token
        /// comes, so the kernel's buffers fill and the client's writes block (a slow
        /// gateway). Values below 1 count as 1, above 10⁹ as 10⁹. What is read and thrown
        /// away after a refusal is not rate-limited.
        public var readRate: Int?
        /// Write feedback tuples in TLS records of at most this many bytes; `nil` writes
        /// them all at once.
        public var feedbackWriteSize: Int?
        /// Wait this long between two writes of ``feedbackWriteSize`` bytes (a slow feedback
        /// service, so a visit lasts long enough to interrupt); zero, the default: no pause.
        /// Each write then has 10 s of its own to complete, rather than the visit.
        public var feedbackWritePause: Duration

        /// No faults: the gateway behaves as Apple's did.
        public init() {
            rejectedTokens = [:]
            rejectedIdentifiers = [:]
            rejectedOrdinals = [:]
            rejectedOrdinalsOnEachConnection = [:]
            shutdownAfter = nil
            closeAfter = nil
            resetAfter = nil
            closeEvery = nil
            resetEvery = nil
            stallReadsAfter = nil
            stallDuration = .seconds(1)
            stallEnd = .resume
            errorIdentifierOverride = nil
            errorResponseDelay = .zero
            splitsErrorResponse = false
            errorResponseByteInterval = nil
            errorResponseLag = 0
            latency = .zero
            readRate = nil
            feedbackWriteSize = nil
            feedbackWritePause = .zero
        }

        /// The most bytes a connection holds while they wait out the ``latency``: 16 MiB
        /// (the server core's default).
        /// It stops reading its socket at this, so a client cannot make the gateway grow
        /// without bound, and a fast client meets backpressure as across a real network.
        public static let latencyBufferLimit = ConnectionSettings.defaultHeldByteLimit

        /// How long a client must send nothing for an ``errorResponseLag`` to end early:
        /// 100 ms.
        public static let errorResponseLagIdleTimeout: Duration = ErrorReply.lagIdleTimeout

        /// Send identifier 0 in every error response, as Apple did when it could not tell
        /// which notification was bad: ``errorIdentifierOverride`` `== 0`. Setting it
        /// `true` sets the override to 0; setting it `false` removes an override of 0 (and
        /// leaves any other).
        public var zeroIdentifierInErrors: Bool {
            get { errorIdentifierOverride == 0 }
            set {
                if newValue {
                    errorIdentifierOverride = 0
                } else if errorIdentifierOverride == 0 {
                    errorIdentifierOverride = nil
                }
            }
        }

        /// Stops reading the connection that brings the `count`-th accepted notification
        /// overall for `duration`, then ends the stall as `end` says (by default it
        /// resumes; ``StallEnd/never`` ignores `duration`): sets ``stallReadsAfter``,
        /// ``stallDuration`` and ``stallEnd``.
        public mutating func stallReads(
            afterAccepting count: Int, for duration: Duration = .seconds(1), then end: StallEnd = .resume
        ) {
            stallReadsAfter = count
            stallDuration = duration
            stallEnd = end
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
