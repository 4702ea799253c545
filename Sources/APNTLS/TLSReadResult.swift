/// How a blocking read (``TLSConnection/read(into:deadline:)``) ended.
package enum TLSReadResult: Sendable {
    /// This many bytes (> 0) were read into the buffer.
    case bytes(Int)
    /// The peer closed: `clean` when it sent close_notify first.
    case closed(clean: Bool)
    /// The connection failed (a reset is ``TLSError/Kind-swift.struct/connectionReset``).
    case failed(TLSError)
    /// Nothing came before the deadline (or before the caller's wait gave up).
    case timedOut
}
