package import APNWire

/// An error response, and how the connection gets to writing it: by default the 6 bytes
/// at once. The mock's faults shape the rest (a lag, a delay, split or trickled bytes).
package struct ErrorReply: Sendable {
    /// The 6 bytes `08 | status | identifier`.
    package var bytes: [UInt8]
    /// How many more notifications to read and throw away first (or until the client is
    /// idle for ``lagIdleTimeout``).
    package var lag: Int
    /// How long to wait after the lag, reading and throwing away.
    package var delay: Duration
    /// Write them as two TLS records (2 bytes, then 4).
    package var split: Bool
    /// Write them one byte per TLS record, this long apart (wins over `split`).
    package var byteInterval: Duration?

    /// An error response of `bytes`, shaped so.
    package init(bytes: [UInt8], lag: Int = 0, delay: Duration = .zero, split: Bool = false, byteInterval: Duration? = nil) {
        self.bytes = bytes
        self.lag = lag
        self.delay = delay
        self.split = split
        self.byteInterval = byteInterval
    }

    /// The error response for `status` and `identifier`, written at once.
    package init(status: StatusCode, identifier: UInt32) {
        var bytes = WireBuffer(capacity: Command.errorResponseLength)
        bytes.writeErrorResponse(status: status, identifier: identifier)
        self.init(bytes: bytes.readableBytesArray)
    }

    /// Whether the connection reads and decodes (to count) before answering.
    package var waits: Bool { lag > 0 || delay > .zero }

    /// How long a client must send nothing for a ``lag`` to end early: 100 ms.
    package static let lagIdleTimeout: Duration = .milliseconds(100)
}
