import APNSupport
import APNHTTP2
import APNTLS
import Dispatch
import Glibc

/// A provider's I/O thread: the driver of its ``ProviderPool``, which decides everything.
/// It owns the sockets and does only I/O: takes commands from the inbox, reads what arrived
/// into the pool, performs the pool's actions (connect off-thread, close, call completions,
/// batch events onto the callback queue once per turn), writes what the pool's sessions
/// have to send, and sleeps in `poll` until a socket, the inbox or the pool's next
/// deadline wakes it. Completions are called here, each quick: a continuation resumed, a
/// counter decremented.
///
/// The turn, the inbox, the clock's observer and the `poll()` are the ``PollDriver``'s,
/// shared with ``ConnectionLoop``; the extension at the end gives it the hooks of a turn.
/// Reads and writes only feed the pool; its actions are performed at the driver's named
/// points.
struct ProviderLoop: ~Copyable {
    private let inbox: CommandInbox<ProviderCommand>
    private let connector: ClientConnector
    /// `host:port`, for the connect failures' messages.
    private let peer: String
    private let clock: ConnectionClock
    private let hub: ListenerHub<ProviderEvent>
    private let queue: DispatchQueue
    /// Where the provider's events are logged, on this thread, as they happen.
    private let log: ComponentLog
    private var pool: ProviderPool
    private var sockets: [ProviderSocket] = []
    private var readable: Set<Int> = []
    private var finished = false
    private var events: [ProviderEvent] = []
    private var now = Timestamp(nanoseconds: 0)

    init(
        options: Provider.Options, inbox: CommandInbox<ProviderCommand>, hub: ListenerHub<ProviderEvent>,
        queue: DispatchQueue
    ) {
        self.inbox = inbox
        self.connector = ClientConnector(
            ClientConnector.Settings(options), access: options.clientAccess, log: options.log, clock: options.clock,
            threads: options.threadStarter)
        self.peer = "\(options.host):\(options.port)"
        self.clock = options.clock
        self.hub = hub
        self.queue = queue
        self.log = options.log
        var session = HTTP2Session.Configuration()
        // Apple's answers are small; a larger body is a broken or hostile peer.
        session.maxBodySize = options.responseBodyLimit
        session.maxConcurrentStreams = 100  // server-initiated streams: none expected
        session.keptResponseFields = ProviderAnswer.fieldsRead
        // An answer ends its request: the stream's close after it would only be looked up
        // and dropped.
        session.reportsCloseAfterResponse = false
        self.pool = ProviderPool(
            configuration: ProviderPool.Configuration(
                scheduler: ProviderScheduler.Configuration(
                    requestTimeout: options.requestTimeout, retryLimit: max(0, options.retryLimit),
                    initialBackoff: options.initialBackoff, serverErrorBackoff: options.serverErrorBackoff,
                    maxBackoff: options.maxBackoff),
                session: session, maxConnections: options.maxConnections,
                maxConcurrentStreams: options.maxConcurrentStreams,
                connectionRetryLimit: options.connectionRetryLimit, pingInterval: options.pingInterval,
                pingTimeout: options.pingTimeout),
            authorization: ProviderAuthorization(options))
    }

    // MARK: The loop

    /// Runs the loop's turns on the calling thread (see ``PollDriven`` for the order of a
    /// turn) until the pool says `stop`.
    mutating func run() {
        var driver = PollDriver(inbox: inbox, clock: clock, clockAdvanced: ProviderCommand.clockAdvanced)
        driver.run(&self)
        connector.stop()
    }

    /// One command, fed to the pool.
    mutating func handle(_ command: ProviderCommand) {
        switch command {
        case .send(let submissions, let target):
            pool.send(submissions, to: target)
        case .sendToDevices(let run):
            pool.send(run)
        case .cancel(let cancellation):
            pool.cancel(cancellation)
        case .connectResult(let attempt, .connected(let handoff)):
            let connection = handoff.take()
            if let number = pool.connected(attempt: attempt, peer: connection.peerDescription, now: now) {
                sockets.append(ProviderSocket(number: number, connection: connection))
            } else {
                connection.close()
            }
        case .connectResult(let attempt, .failed(let error)):
            pool.connectFailed(attempt: attempt, error, now: now)
        case .shutdown(let reply):
            pool.shutdown(reply: reply)
        case .withdraw(let reply):
            pool.withdraw(reply: reply)
        case .release:
            pool.release()
        case .barrier(let reply):
            pool.barrier(reply: reply)
        case .clockAdvanced:
            break
        case .reloadCredentials(let options, let context):
            pool.replaceAuthorization(ProviderAuthorization(options))
            connector.replaceContext(context)
        case .probe(let reply):
            // On the connect thread: the connection is closed there, never handed to the pool.
            connector.start { [peer] result in
                switch ProviderConnectResult(result, peer: peer) {
                case .connected(let handoff):
                    handoff.take().close()
                    reply(nil)
                case .failed(let error):
                    reply(error)
                }
            }
        }
    }

    /// Performs or reports every action the pool asked for, in order.
    mutating func performActions() {
        while let action = pool.nextAction() {
            // Consumed: each action's payload is bound where it lies, not copied out and the
            // action destroyed after (a retain and a release of each of its references).
            switch consume action {
            case .connect(let attempt):
                connector.start { [inbox, peer] result in
                    inbox.post(.connectResult(attempt: attempt, ProviderConnectResult(result, peer: peer)))
                }
            case .close(let number, let lastBytes):
                guard let index = sockets.firstIndex(where: { $0.number == number }) else { continue }
                sockets.remove(at: index).close(lastBytes: lastBytes)
            case .complete:
                if let failure = pool.performCompletion(reportingFailures: hub.hasListeners) {
                    events.append(.failed(failure))
                }
            case .event(let event):
                log.record(event)
                if hub.hasListeners { events.append(event) }
            case .reply(let reply):
                dispatchEvents()
                queue.async(execute: reply)
            case .finish(let replies):
                dispatchEvents()
                queue.async { [hub] in
                    hub.finish()
                    for reply in replies { reply() }
                }
            case .stop:
                finished = true
            }
        }
    }

    // MARK: I/O

    private mutating func readSockets() {
        for socket in sockets where readable.contains(socket.number) || socket.connection.hasDecryptedData {
            let number = socket.number
            let end = socket.read { bytes in
                pool.received(bytes, on: number, now: now)
                return pool.connection(number).map { $0.failure == nil } ?? false
            }
            switch end {
            case .drained: break
            case .closed: pool.socketEnded(number, failure: nil, now: now)
            case .failed(let error): pool.socketEnded(number, failure: error, now: now)
            }
        }
        readable.removeAll(keepingCapacity: true)
    }

    private mutating func writeSockets() {
        for socket in sockets {
            let number = socket.number
            switch socket.flush({ pool.appendOutput(of: number, to: &$0) }) {
            case .flushed(let progressed, let blocked):
                pool.flushed(number, progressed: progressed, blocked: blocked, now: now)
            case .failed(let error):
                pool.socketEnded(number, failure: error, now: now)
            }
        }
    }

    // MARK: Reports

    private mutating func dispatchEvents() {
        guard !events.isEmpty else { return }
        let batch = events
        events.removeAll()
        queue.async { [hub] in
            let listeners = hub.snapshot()
            for event in batch {
                for listener in listeners { listener(event) }
            }
        }
    }
}

// The provider's loop at the named points of a ``PollDriver``'s turn: reads into the pool,
// its checks (deadlines, streams to open), then writes what its sessions have to send.
extension ProviderLoop: PollDriven {
    /// Until the pool said `stop`.
    var isRunning: Bool { !finished }

    /// Takes the turn's time.
    mutating func beginTurn(now: Timestamp) {
        self.now = now
    }

    /// Reads what arrived into the pool.
    mutating func serviceSockets() {
        readSockets()
    }

    /// Nothing: the pool's deadlines are checked at its ``endOfTurn()``.
    mutating func fireTimers() {}

    /// The pool's checks across connections: deadlines, streams to open, connections to close.
    mutating func endOfTurn() {
        pool.endOfTurn(now: now)
    }

    /// Writes what the pool's sessions have to send. A write that failed ended its
    /// connection: the pool's checks run again so it is closed and finished now, not a turn late.
    mutating func flushSockets() {
        writeSockets()
        pool.endOfTurn(now: now)
    }

    /// The turn's events, as one block on the callback queue.
    mutating func finishTurn() {
        dispatchEvents()
    }

    /// Milliseconds until the pool's next deadline (rounded up), 0 when one is due or a
    /// socket has decrypted bytes waiting, -1 for none.
    mutating func sleepTimeout() -> Int32 {
        if sockets.contains(where: { $0.connection.hasDecryptedData }) { return 0 }
        return PollTimeout.milliseconds(
            until: pool.nextDeadline(now: now), now: clock.now(), manual: clock.manual != nil)
    }

    /// Always: what the sockets are ready for is learnt every turn, busy or not.
    var pollsWhileBusy: Bool { true }

    /// Every socket: readable, and writable while it holds refused bytes or the pool has
    /// more to send on it.
    func appendPollDescriptors(to descriptors: inout [pollfd]) {
        for socket in sockets {
            var events = Int16(POLLIN)
            if socket.hasRefusedBytes || pool.wantsWrite(socket.number) { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: socket.connection.fileDescriptor, events: events, revents: 0))
        }
    }

    /// Marks the sockets `poll()` found readable (or ended), in the order
    /// ``appendPollDescriptors(to:)`` added them.
    mutating func polled(_ descriptors: ArraySlice<pollfd>) {
        for (offset, socket) in sockets.enumerated()
        where descriptors[descriptors.startIndex + offset].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            readable.insert(socket.number)
        }
    }
}
