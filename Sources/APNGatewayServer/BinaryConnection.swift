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
        // How long the next read may wait for the client (``ReadDirective/readUntil(_:)``).
        var readDeadline: ContinuousClock.Instant?
        // A frame begun: since when, and how many notifications were decoded then.
        var unfinished: (since: ContinuousClock.Instant, decoded: Int)?
        while true {
            // Checked before every read, not only when the socket runs empty: a client that
            // keeps sending must not keep the connection going after a stop.
            if server.isStopping { return .abandon }
            let directive: ReadDirective
            if reads {
                let latency = max(.zero, handler.inputLatency())
                var until = readDeadline
                let frameDeadline = frameDeadline(input.decoder, &unfinished)
                if let frameDeadline { until = min(until ?? frameDeadline, frameDeadline) }
                let refilled = refill(&input, latency: latency, waker: waker, until: until)
                if let frameDeadline, case .finished = refilled, ContinuousClock.now >= frameDeadline, !server.isStopping {
                    server.count { $0.frameTimeouts += 1 }
                }
                switch refilled {
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
            readDeadline = nil
            switch directive {
            case .read:
                reads = true
            case .readUntil(let deadline):
                reads = true
                readDeadline = deadline
            case .write(let reply):
                let deadline = ContinuousClock.now + .seconds(5)
                guard driver.writeAll(reply.bytes[...], deadline: deadline) else { return .abandon }
                reads = false
            case .pause(let deadline):
                input.paused()
                switch pause(until: deadline, waker: waker) {
                case .stopping:
                    return .abandon
                case .peerReset:
                    // The client reset the connection while nothing was read: what it wrote
                    // and was not read was never handed over, and it abandoned it.
                    guard case .end(let end) = handler.inputEnded(now: .now) else { return .abandon }
                    return end
                case .elapsed, .woken:
                    reads = false
                }
            case .end(let end):
                return end
            }
        }
    }

    /// When the read must end for ``ConnectionSettings/frameTimeout``: the bytes the
    /// handler left in the decoder, asking for more, are a frame begun; its clock runs from
    /// when they were first seen, and restarts whenever a notification completes.
    private func frameDeadline(
        _ decoder: GatewayDecoder, _ unfinished: inout (since: ContinuousClock.Instant, decoded: Int)?
    ) -> ContinuousClock.Instant? {
        guard let timeout = settings.frameTimeout, decoder.bufferedByteCount > 0, !decoder.isFinished else {
            unfinished = nil
            return nil
        }
        if unfinished?.decoded != decoder.decodedCount { unfinished = (.now, decoder.decodedCount) }
        return unfinished.map { $0.since + timeout }
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

    /// Gives the decoder more bytes: straight from a socket read (waiting until `deadline`
    /// at most, when given), or — under latency, or while bytes are still held — the
    /// oldest held bytes once due, reading the socket into the delay line meanwhile.
    private func refill(
        _ input: inout ConnectionInput, latency: Duration, waker: WakeSignal?, until deadline: ContinuousClock.Instant?
    ) -> Refill {
        if latency == .zero && input.line.isEmpty {
            // A handler that waits for others (the bridge) must not act on what a client
            // that reset the connection still has in the kernel's queue: it abandoned it,
            // and resends it on another connection.
            if waker != nil, driver.connection.wasReset { return .finished }
            switch input.readIntoDecoder(driver, until: deadline, waker: waker) {
            case .bytes: return .fed
            case .woken: return .woken
            case .ended: return server.isStopping ? .stopping : .finished
            case .timedOut: return .finished  // the client was quiet until the deadline
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
                // Not watching the client: one that reset still has its held bytes
                // delivered when due (and a failed socket would end every wait at once).
                switch pause(until: due, waker: waker, watchingThePeer: false) {
                case .elapsed, .peerReset: continue
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
        /// The client reset the connection while it read nothing.
        case peerReset
    }

    /// Waits until `deadline` (`nil`: none), the waker or the stop. Without a waker it is a
    /// condition wait on the server's state, which the stop ends at once; with one, a
    /// `poll()` of the waker (which carries the stop), reset once it rose, and — when
    /// `watchingThePeer` — of the socket for the client resetting it.
    private func pause(
        until deadline: ContinuousClock.Instant?, waker: WakeSignal?, watchingThePeer: Bool = true
    ) -> PauseEnd {
        if let deadline, deadline <= .now { return server.isStopping ? .stopping : .elapsed }
        guard let waker else {
            if let deadline { return server.pause(until: deadline) ? .elapsed : .stopping }
            while server.pause(until: .now + .seconds(3600)) {}
            return .stopping
        }
        // The socket is watched too: a client that gives up on a paused connection with a
        // reset (`Connection` does, with bytes unsent) is seen at once, so that what was
        // forwarded for it is settled — remembered for its resends — before it reconnects,
        // not when the pause ends. An orderly close is not: what the client wrote before it
        // may still wait unread, and is read and forwarded first.
        guard watchingThePeer else {
            guard waker.wait(until: deadline) else { return server.isStopping ? .stopping : .elapsed }
            waker.reset()
            return server.isStopping ? .stopping : .woken
        }
        switch try? driver.connection.waitForReset(deadline: deadline, orSignal: waker) {
        case .ready?: return server.isStopping ? .stopping : .peerReset
        case .signalled?:
            waker.reset()
            return server.isStopping ? .stopping : .woken
        case .timedOut?, nil: return server.isStopping ? .stopping : .elapsed
        }
    }
}
