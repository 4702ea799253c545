import APNSupport
import APNTLS
import APNWire

/// One binary gateway connection, run start to finish on its own thread: handshake, then
/// read → decode → ask the handler, until the handler ends it, the client leaves or the
/// server stops; then the end the handler asked for (``ConnectionEnd``). Under a latency
/// reads go through a ``DelayLine`` first. A pause reads nothing, so TCP's backpressure
/// reaches the client.
struct BinaryConnection<Policy: BinaryGatewayPolicy> {
    let driver: ConnectionDriver
    let settings: ConnectionSettings
    let policy: Policy

    var server: ServerState { driver.server }

    func run() {
        guard driver.handshake(deadline: .now + settings.handshakeTimeout) else { return }
        // A bulk reader: take what the socket holds in one system call rather than a
        // record header, then its body.
        driver.connection.setReadAhead(true)
        guard var handler = policy.open(peer: driver.connection.peerCertificate) else {
            driver.connection.close()
            return
        }
        let waker = handler.waker
        if let waker { server.watchStop(waker) }
        defer { if let waker { server.unwatchStop(waker) } }
        var input = ConnectionInput(limits: settings.limits, heldByteLimit: settings.heldByteLimit)
        switch serve(&handler, input: &input, waker: waker) {
        case .errorResponse(let reply): answer(reply, handler: &handler, input: &input)
        case .close: driver.finish(closeNotify: false, linger: settings.lingerTimeout)
        case .reset: driver.reset()
        case .abandon: driver.connection.close()
        }
        handler.closed()
    }

    /// Reads and asks the handler until the connection must end (``ConnectionEnd/abandon``
    /// when the client left or the server is stopping, unless the handler says otherwise).
    private func serve(
        _ handler: inout Policy.Handler, input: inout ConnectionInput, waker: WakeSignal?
    ) -> ConnectionEnd {
        // Whether the handler asked for bytes; after a pause it is asked again first,
        // since the decoder may hold what it did not take yet.
        var reads = true
        while true {
            // Checked before every read, not only when the socket runs empty: a client that
            // keeps sending must not keep the connection going after a stop.
            if server.isStopping { return .abandon }
            let directive: ReadDirective
            if reads {
                switch refill(&input, latency: max(.zero, handler.inputLatency()), waker: waker) {
                case .fed:
                    directive = handler.consume(&input.decoder, now: .now)
                case .woken:
                    // Reset before asking, so a signal raised during the call is kept.
                    waker?.reset()
                    if server.isStopping { return .abandon }
                    directive = handler.consume(&input.decoder, now: .now)
                case .finished:
                    directive = handler.inputEnded(now: .now)
                    if case .read = directive { return .abandon }
                case .stopping:
                    return .abandon
                }
            } else {
                directive = handler.consume(&input.decoder, now: .now)
            }
            switch directive {
            case .read:
                reads = true
            case .pause(let deadline):
                input.paused()
                guard pause(until: deadline, waker: waker) != .stopping else { return .abandon }
                reads = false
            case .end(let end):
                return end
            }
        }
    }

    /// What a ``refill(_:latency:waker:)`` brought.
    private enum Refill {
        /// Bytes for the decoder.
        case fed
        /// The waker was raised first.
        case woken
        /// Nothing more will come: the client finished and nothing is held.
        case finished
        /// The server is stopping.
        case stopping
    }

    /// Gives the decoder more bytes: straight from a socket read, or — under latency, or
    /// while bytes are still held — the oldest held bytes once due, reading the socket
    /// into the delay line meanwhile.
    private func refill(_ input: inout ConnectionInput, latency: Duration, waker: WakeSignal?) -> Refill {
        if latency == .zero && input.line.isEmpty {
            switch input.readIntoDecoder(driver, waker: waker) {
            case .bytes: return .fed
            case .woken: return .woken
            case .ended: return server.isStopping ? .stopping : .finished
            case .timedOut: return .finished  // no deadline was given: not seen
            }
        }
        while true {
            if let bytes = input.line.popDue(at: .now, latency: latency) {
                input.decoder.feed(bytes)
                return .fed
            }
            let due = input.line.dueTime(latency: latency)
            if input.line.isFull || input.peerFinished {
                // Read nothing until the oldest bytes fall due: when full, TCP's
                // backpressure reaches the client; when it finished, nothing comes.
                guard let due else { return .finished }
                switch pause(until: due, waker: waker) {
                case .elapsed: continue
                case .woken: return .woken
                case .stopping: return .stopping
                }
            }
            switch input.readIntoLine(driver, until: due, waker: waker) {
            case .ended where server.isStopping: return .stopping
            case .woken: return .woken
            case .bytes, .ended, .timedOut: break
            }
        }
    }

    /// How a ``pause(until:waker:)`` ended.
    private enum PauseEnd {
        case elapsed
        case woken
        case stopping
    }

    /// Waits until `deadline` (`nil`: none), the waker or the stop. Without a waker it is a
    /// condition wait on the server's state, which the stop ends at once; with one, a
    /// `poll()` of the waker (which carries the stop), reset once it rose.
    private func pause(until deadline: ContinuousClock.Instant?, waker: WakeSignal?) -> PauseEnd {
        if let deadline, deadline <= .now { return server.isStopping ? .stopping : .elapsed }
        guard let waker else {
            if let deadline { return server.pause(until: deadline) ? .elapsed : .stopping }
            while server.pause(until: .now + .seconds(3600)) {}
            return .stopping
        }
        guard waker.wait(until: deadline) else { return server.isStopping ? .stopping : .elapsed }
        waker.reset()
        return server.isStopping ? .stopping : .woken
    }
}
