public import APNWire

extension MockGateway {
    /// A notification the gateway accepted, as it arrived.
    public struct Record: Sendable, Hashable {
        /// The gateway connection it came on: 1 for the first connection whose TLS
        /// handshake completed, then 2, 3, …
        public var connection: Int
        /// Its place among every accepted notification: 1, 2, 3, … across connections.
        public var sequence: Int
        /// The format it came in.
        public var command: Command
        /// Its identifier; `nil` for command 0 and for a frame without item 3.
        public var identifier: UInt32?
        /// The device token.
        public var token: [UInt8]
        /// The payload bytes, as sent.
        public var payload: [UInt8]
        /// The expiry in UNIX seconds; `nil` for command 0 and for a frame without item 4.
        public var expiry: UInt32?
        /// The priority; `nil` unless a frame carried item 5.
        public var priority: UInt8?

        /// Creates a record (tests build the records they expect with it).
        public init(
            connection: Int, sequence: Int, command: Command, identifier: UInt32?,
            token: [UInt8], payload: [UInt8], expiry: UInt32?, priority: UInt8?
        ) {
            self.connection = connection
            self.sequence = sequence
            self.command = command
            self.identifier = identifier
            self.token = token
            self.payload = payload
            self.expiry = expiry
            self.priority = priority
        }
    }

    /// An error the gateway answered with (or, for command 0, closed for): a notification
    /// refused by validation or by a fault, or the shutdown fault's status 10.
    public struct RejectionRecord: Sendable, Hashable {
        /// The status decided (sent as 255 when above 255).
        public var status: StatusCode
        /// The identifier of the notification concerned — for status 10 the last accepted
        /// one — as it arrived; `nil` when it had none. The error response carries 0 then,
        /// or ``Faults/errorIdentifierOverride`` when that is set.
        public var identifier: UInt32?
        /// The gateway connection it happened on.
        public var connection: Int
        /// How many notifications after this one the gateway read, decoded and threw away
        /// before it wrote the error response, while the faults made it wait
        /// (``Faults/errorResponseLag``, ``Faults/errorResponseDelay``, ``Faults/latency``).
        /// 0 when it answered at once: what follows is then thrown away undecoded. Set when
        /// the response is about to be written, so read it once the client has it.
        public var discardedAfter: Int

        /// Creates a rejection record.
        public init(status: StatusCode, identifier: UInt32?, connection: Int, discardedAfter: Int = 0) {
            self.status = status
            self.identifier = identifier
            self.connection = connection
            self.discardedAfter = discardedAfter
        }
    }
}
