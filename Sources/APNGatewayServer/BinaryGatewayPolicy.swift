package import APNSupport
package import APNTLS
package import APNWire

/// What a binary gateway server plugs in: the decisions, for every connection it accepts.
/// The server core does the I/O — TLS, reading, the decoder's buffer, error responses,
/// closes, caps and idle timeouts — and asks the policy's handlers what to do next; the
/// mock plugs in scripted decisions and a record, the bridge forwarding.
package protocol BinaryGatewayPolicy: Sendable {
    /// The decisions for one connection.
    associatedtype Handler: BinaryConnectionHandler

    /// A handler for a connection whose TLS handshake completed, the client presenting
    /// `peer` (verified against the accepted CAs; `nil` when it sent none); `nil` closes
    /// the connection at once. Called on the connection's thread.
    func open(peer: TLSCertificate?) -> Handler?
}

/// The decisions for one binary connection, sans I/O: it is told what happened (bytes
/// decodable, the client finished, a pause ended, its waker rose) and answers with what the
/// connection does next (``ReadDirective``). It is used on the connection's thread only.
///
/// The calls, in order: ``consume(_:now:)`` after every read (and after every pause, and
/// whenever ``waker`` is raised), until a directive ends the connection;
/// ``inputEnded(now:)`` when the client finished sending and everything it sent was fed to
/// the decoder; ``closed()`` once, after the connection's socket is closed.
package protocol BinaryConnectionHandler {
    /// A signal another thread raises to have ``consume(_:now:)`` called although nothing
    /// was read, e.g. because answers arrived: the server polls it beside the socket (and
    /// resets it before the call). `nil` (the default): nothing but the client and the
    /// clock wakes the connection — which also spares a pipe per connection.
    var waker: ConnectionWaker? { get }

    /// How long bytes read now are held before the decoder sees them: a simulated
    /// network (the mock's latency). Asked before each read, so it may change between
    /// reads. `.zero` (the default) hands them over at once.
    mutating func inputLatency() -> Duration

    /// Takes what `decoder` can decode now — all of it under one lock, if that is what
    /// the handler needs, rather than a lock per notification — and says what next. Called
    /// after each read, after each pause, and when the ``waker`` was raised (the decoder may
    /// then have nothing new). Bytes left in the decoder stay there for the next call.
    mutating func consume(_ decoder: inout GatewayDecoder, now: ContinuousClock.Instant) -> ReadDirective

    /// The client finished sending (it closed, the connection failed, or it was idle past
    /// ``ConnectionLimits/idleTimeout``) and everything it sent was given to
    /// ``consume(_:now:)``; what the decoder still holds is an incomplete frame. Also when
    /// the client reset the connection during a pause of a handler with a ``waker``: then
    /// what it sent and was not read is dropped, and only an `.end` is taken (anything
    /// else abandons). `.read`
    /// closes at once (as ``ConnectionEnd/abandon``); a pause waits (e.g. for answers), then
    /// calls ``consume(_:now:)``, after which `.read` comes back here.
    mutating func inputEnded(now: ContinuousClock.Instant) -> ReadDirective

    /// The error response the handler ended with waited (``ErrorReply/lag``,
    /// ``ErrorReply/delay``) and threw away `count` notifications meanwhile; called before
    /// its bytes are written, and not when the server stopped first. The default ignores it.
    mutating func discardedBeforeAnswer(_ count: Int)

    /// The connection is closed, whatever ended it (a directive, the client, the stop).
    mutating func closed()
}

extension BinaryConnectionHandler {
    /// No waker.
    package var waker: ConnectionWaker? { nil }

    /// No latency.
    package mutating func inputLatency() -> Duration { .zero }

    /// Ignored.
    package mutating func discardedBeforeAnswer(_ count: Int) {}
}

/// A connection's wake-up signal (``BinaryConnectionHandler/waker``): an APNTLS
/// `WakeSignal`, whose descriptor `poll()` watches beside the socket.
package typealias ConnectionWaker = WakeSignal

/// What a binary connection does next, as its ``BinaryConnectionHandler`` decides.
package enum ReadDirective: Sendable {
    /// Read more from the client, then call ``BinaryConnectionHandler/consume(_:now:)``.
    case read
    /// Read more, waiting for it until this instant at most: a client that sends nothing
    /// by then is taken as finished (``BinaryConnectionHandler/inputEnded(now:)``), as one
    /// that closed (the bridge's quiet period after an error response).
    case readUntil(ContinuousClock.Instant)
    /// Write this error response now, leave the connection open, and call
    /// ``BinaryConnectionHandler/consume(_:now:)`` again (the bridge, which reads on after
    /// a refusal).
    indirect case write(ErrorReply)
    /// Read nothing until this instant (`nil`: until the ``BinaryConnectionHandler/waker``
    /// is raised, or the stop — backpressure), then call
    /// ``BinaryConnectionHandler/consume(_:now:)`` again. TCP's flow control reaches the
    /// client meanwhile. An instant already passed calls it again at once (more is
    /// decodable, e.g. after a budget ran out).
    case pause(until: ContinuousClock.Instant?)
    /// End the connection so.
    case end(ConnectionEnd)
}

/// How a binary connection ends.
package enum ConnectionEnd: Sendable {
    /// Write the error response, then close (close_notify, then linger). Indirect so that
    /// the enums carrying it, made and dropped once per notification in the mock, stay a
    /// couple of words: a large enum is copied and destroyed through value witnesses, which
    /// cost the mock's recording path 7% of its instructions when ``ErrorReply`` grew.
    indirect case errorResponse(ErrorReply)
    /// Close without a word, then linger reading what the client still sends.
    case close
    /// Close with a TCP reset.
    case reset
    /// Close the socket at once: nothing to say, nothing worth waiting for (the client
    /// left, or the server is stopping).
    case abandon
}
