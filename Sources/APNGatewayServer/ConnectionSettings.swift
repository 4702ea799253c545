package import APNWire

/// The settings every binary or feedback connection thread needs, copied out of the
/// configuration.
package struct ConnectionSettings: Sendable {
    /// The token and payload bounds the decoder enforces.
    package var limits: GatewayDecoder.Limits
    /// How long a client has to finish the TLS handshake.
    package var handshakeTimeout: Duration
    /// How long, after the server closed its side, it keeps reading and discarding.
    package var lingerTimeout: Duration
    /// The most bytes a connection holds while they wait out a
    /// ``BinaryConnectionHandler/inputLatency()``: it stops reading at this.
    package var heldByteLimit: Int
    /// How long a frame begun may stay unfinished — bytes of it read, no notification
    /// completed since — before the connection is ended as if the client had left; nil:
    /// as long as it likes. A client that sends half a frame must not hold a connection
    /// (and a slot of `maxConnections`) for ever.
    package var frameTimeout: Duration?

    /// Settings so; ``defaultHeldByteLimit`` held at most by default.
    package init(
        limits: GatewayDecoder.Limits, handshakeTimeout: Duration, lingerTimeout: Duration,
        heldByteLimit: Int = defaultHeldByteLimit, frameTimeout: Duration? = nil
    ) {
        self.frameTimeout = frameTimeout
        self.limits = limits
        self.handshakeTimeout = handshakeTimeout
        self.lingerTimeout = lingerTimeout
        self.heldByteLimit = heldByteLimit
    }

    /// 16 MiB: a client cannot make a connection grow without bound, and a fast client
    /// meets backpressure as across a real network.
    package static let defaultHeldByteLimit = 16 << 20
}
