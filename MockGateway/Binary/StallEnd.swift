extension MockGateway.Faults {
    /// How a read stall (``stallReadsAfter``) ends, once its ``stallDuration`` is over.
    /// Whatever the ending, the notifications the client wrote during the stall were never
    /// decoded: they are recorded only if the connection resumes.
    public enum StallEnd: Sendable, Hashable {
        /// Read, decode and record again, as before the stall (the default): a gateway
        /// that was only slow for a while.
        case resume
        /// Close without an error response, as a gateway that gave up on the connection:
        /// what the client wrote after the stall began is thrown away, never recorded
        /// (the server core still drains it during its linger, so the close is a clean
        /// FIN rather than a reset).
        case close
        /// Close with a TCP reset: the client's unread notifications are lost with it.
        case reset
        /// Stay stalled until the gateway stops; ``stallDuration`` is ignored. A gateway
        /// that hangs: the client's writes block, and only its own timeouts help it.
        case never
    }
}
