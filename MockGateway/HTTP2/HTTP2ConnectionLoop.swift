import APNSupport
import APNWire
import APNHTTP2
import APNTLS
import APNGatewayServer

/// One HTTP/2 connection after its handshake, on the thread that owns it: an nghttp2 server
/// session between the socket and the gateway's judgement.
///
/// Each turn: pick up changed faults; follow the ``IdleRule`` (drop a silent peer, or decide
/// a GOAWAY for an idle connection); submit the held answers that fell due; write what the
/// session has to send until the socket would block, then a decided GOAWAY once every
/// stream it covers is answered (answers first: a client that sees a GOAWAY while a stream
/// it covers is unanswered may send that request again); end when the session is done;
/// then wait — in `poll()`, until the next timer, a change of the faults or the stop
/// (``wake``) — for the socket, and read once (one TLS record, up to 16 KiB), judging every
/// request that read completed under one lock.
///
/// Backpressure: nothing is read while written bytes wait for the socket, so a client that
/// stops reading finds its own writes blocked, and the gateway holds at most one read's
/// worth of answers beyond what the session's stream limit allows.
final class HTTP2ConnectionLoop {
    /// How the connection ends.
    enum End {
        /// The session finished (both ends done, or a GOAWAY sent and its streams
        /// answered): close politely.
        case finished
        /// A fault asked for a TCP reset.
        case reset
        /// The client left, the socket failed, or the gateway is stopping: just close.
        case abandoned
    }

    let connection: TLSConnection
    let shared: GatewayState<HTTP2Ledger>
    /// Raised by the gateway when the faults change or it stops (``GatewayState/watchFaults(_:)``).
    let wake: WakeSignal
    let number: Int
    let session: HTTP2Session
    let validator: RequestValidator
    let sendsUniqueID: Bool
    var authenticator: ConnectionAuthenticator
    /// The `apns-id`s made for requests without one, and the `apns-unique-id`s.
    var ids = UUIDSequence()
    var uniqueIDs = UUIDSequence()
    /// The values of the last request's repeating fields, reused for the next one's.
    var fieldStrings = RequestFieldStrings()
    var faults = ConnectionFaults()
    var delayed = DelayedAnswers()
    /// Requests received on this connection, for the "after N requests" faults.
    var requestCount = 0
    /// The last-stream-id of the GOAWAY decided: streams above it are not processed.
    var goawayLastStream: Int32?
    /// Whether a GOAWAY was decided (by a fault or for idleness): no second one.
    var goingAway = false
    /// The GOAWAY decided but not submitted yet: it waits until every stream up to its
    /// last-stream-id is answered.
    var unsentGoaway: (lastStreamID: Int32, debugData: [UInt8])?
    /// The highest stream that carried a complete request: the last-stream-id of an idle GOAWAY.
    var lastRequestStream: Int32 = 0
    /// The stream limit to advertise once a request carries a valid provider token; `nil`
    /// when the connection has its full limit already.
    var streamLimitAfterToken: UInt32?
    /// The client broke HTTP/2: nothing more is read, the session's GOAWAY is written.
    var failed = false
    /// ``HTTP2MockGateway/Faults/stallAfterRequests`` struck: bytes are read and dropped,
    /// nothing is answered or written, until the client leaves.
    var stalled = false
    /// What the idle timeouts go by: since when the client is quiet, whether its SETTINGS
    /// came, since when a GOAWAY is decided.
    var quiet = IdleRule.State(quietSince: .now)
    var idleRule: IdleRule
    /// Requests of the current read, validated, waiting to be judged; then their answers.
    var pending: [PendingRequest] = []
    var answers: [Answer] = []
    var rejectedStreams = 0
    private var output: [UInt8] = []
    private var written = 0
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(
        connection: TLSConnection, shared: GatewayState<HTTP2Ledger>, wake: WakeSignal, number: Int, session: HTTP2Session,
        settings: HTTP2ConnectionSettings, certificate: ConnectionAuthenticator.Certificate?, streamLimitAfterToken: UInt32?
    ) {
        self.connection = connection
        self.shared = shared
        self.wake = wake
        self.number = number
        self.session = session
        validator = settings.validator
        sendsUniqueID = settings.sendsUniqueID
        idleRule = IdleRule(timeout: settings.idleTimeout)
        authenticator = ConnectionAuthenticator(rules: settings.authentication, certificate: certificate)
        self.streamLimitAfterToken = streamLimitAfterToken
    }

    /// Serves the connection until it ends.
    func serve() -> End {
        // Before the first look at the stop and the faults: a change after it is signalled.
        shared.watchFaults(wake)
        defer { shared.unwatchFaults(wake) }
        while true {
            if shared.isStopping { return .abandoned }
            faults.refresh(from: shared)
            idleRule.goawayTimeout = faults.idleTimeout
            if stalled { if let end = drainWhileStalled() { return end } else { continue } }
            let now = ContinuousClock.now
            switch idleRule.step(quiet, at: now) {
            case .wait:
                break
            case .drop:
                // Silent (or not reading what it was sent) for too long: it holds a thread.
                shared.server.count { $0.idleTimeouts += 1 }
                return .abandoned
            case .goaway(let idleTimeout):
                if idleTimeout { shared.server.count { $0.idleTimeouts += 1 } }
                goAway(lastStreamID: nil, reason: ProviderReason.idleTimeout.rawValue, at: now)
            }
            releaseDueAnswers(at: now)
            guard flush() else { return .abandoned }
            if submitGoawayOnceAnswered() { guard flush() else { return .abandoned } }
            let blocked = written < output.count
            if !session.wantsRead && !session.wantsWrite && !blocked { return .finished }
            let reads = !failed && !blocked && session.wantsRead
            let deadline = nextDeadline
            if reads && !shared.hasRecordRoom {
                // The records are full (RecordRetention.pauseConnections): read nothing until
                // some are released, so TCP's backpressure reaches the client. Waiting for
                // room is not the client's idleness.
                _ = shared.waitForRecordRoom(until: deadline)
                quiet.quietSince = .now
                continue
            }
            // A failed poll shows in the next read or write; a signal, at the top of the loop.
            if (try? connection.waitUntil(readable: reads, writable: blocked, deadline: deadline, orSignal: wake)) == .signalled {
                wake.reset()
            }
            if reads, let end = readOnce() { return end }
        }
    }

    /// When a timer of this connection falls due: the next held answer, the idle rule.
    private var nextDeadline: ContinuousClock.Instant? {
        [delayed.nextDue, idleRule.deadline(quiet)].compactMap { $0 }.min()
    }

    /// Writes what the session has to send until the socket would block; `false` when the
    /// connection failed.
    private func flush() -> Bool {
        while true {
            if written == output.count {
                output.removeAll(keepingCapacity: true)
                written = 0
                if session.appendOutput(to: &output) == 0 { return true }
            }
            let step = output.withUnsafeBytes { connection.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }
            switch step {
            case .done(let count): written += count
            case .wantWrite, .wantRead: return true
            case .closed, .failed: return false
            }
        }
    }

    /// One turn of a hung connection: waits (until a signal at most) for bytes and drops
    /// them; the end once the client leaves.
    private func drainWhileStalled() -> End? {
        if (try? connection.waitUntil(readable: true, writable: false, deadline: nil, orSignal: wake)) == .signalled {
            wake.reset()
            return nil
        }
        switch readBuffer.withUnsafeMutableBytes({ connection.read(into: $0) }) {
        case .done, .wantRead, .wantWrite: return nil
        case .closed, .failed: return .abandoned
        }
    }

    /// Reads once and hands the bytes to the session, then handles what they completed;
    /// the end when the connection must end now.
    private func readOnce() -> End? {
        let step = readBuffer.withUnsafeMutableBytes { connection.read(into: $0) }
        switch step {
        case .done(let count):
            quiet.quietSince = .now
            let failure: HTTP2Error? = readBuffer.withUnsafeBytes { bytes in
                do throws(HTTP2Error) {
                    try session.receive(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                    return nil
                } catch {
                    return error
                }
            }
            guard failure == nil else {
                // A bad preface, a flood, a connection error: the session queued a GOAWAY
                // saying so and ends once it is written. Nothing of this read is judged:
                // its answers could not go out.
                failed = true
                _ = session.takeEvents()
                shared.update { $0.summary.protocolErrors += 1 }
                return nil
            }
            return handle(session.takeEvents())
        case .wantRead, .wantWrite:
            return nil
        case .closed, .failed:
            return .abandoned
        }
    }
}

/// What every HTTP/2 connection thread needs, made once from the configuration.
struct HTTP2ConnectionSettings: Sendable {
    var validator: RequestValidator
    /// The stream limit of a connection without a client certificate until it sends a
    /// valid provider token (``HTTP2MockGateway/Configuration/streamsUntilTokenVerified``).
    var streamsUntilTokenVerified: UInt32?
    var authentication: ConnectionAuthenticator.Rules
    var session: HTTP2Session.Configuration
    var certificateTopics: [String]
    var environment: PushEnvironment
    var sendsUniqueID: Bool
    var handshakeTimeout: Duration
    var lingerTimeout: Duration
    var idleTimeout: Duration?
}
