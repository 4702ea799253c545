/// What the ``ProviderPool`` asks its driver to do, or reports to the caller. Drained with
/// `ProviderPool.nextAction()` after every input and performed in order.
enum ProviderPoolAction {
    /// Open a connection (TCP, TLS, ALPN `h2`) off the I/O thread; answer with
    /// `connected(attempt:peer:now:)` or `connectFailed(attempt:_:now:)`.
    case connect(attempt: Int)
    /// Write `lastBytes` (the session's last frames, a GOAWAY) if the socket takes them,
    /// then close connection `connection`'s socket; nil: a failed socket, closed at once,
    /// written to no more. The pool has already forgotten it.
    case close(connection: Int, lastBytes: [UInt8]?)
    /// Call the next completion's sink with its response (a failure also goes to listeners
    /// as ``ProviderEvent/failed(_:)``): ``ProviderPool/performCompletion(_:)``. The
    /// completions wait in the pool, in order, each built where it waits and read there:
    /// carried in the action, a completion (some 250 bytes) was moved five times on its way
    /// from the scheduler to the driver (callgrind, #45).
    case complete
    /// Hand `event` to the provider's listeners.
    case event(ProviderEvent)
    /// Call `reply` (a barrier, or a `shutdown()` after the pool closed), in order with the
    /// completions and events before it.
    case reply(@Sendable () -> Void)
    /// The pool closed: end the event streams, then call each `shutdown()` reply.
    case finish(replies: [@Sendable () -> Void])
    /// Closed and released: the driver ends.
    case stop
}
