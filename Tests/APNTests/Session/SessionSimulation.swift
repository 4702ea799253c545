import APN
import APNWire
import APNTestSupport

/// A seeded, randomized run of a `GatewaySession` against an in-memory gateway built on
/// APNWire's gateway-side decoder. The gateway rejects a fixed set of "bad" notifications
/// (each with its own status), and at random: answers with identifier 0 or one never
/// written, holds its answer back while it discards more frames (so a count-bounded cache
/// falls short), sends status 10, trickles its answer in parts, closes silently, resets;
/// connection attempts fail at random. Between the socket and the gateway a network holds
/// bytes until it delivers them (then the peer acknowledges them, which the driver reports
/// when the session tracks acknowledgements), and with tracking it may hold them for
/// seconds, longer than the grace window, and lose them when the gateway goes. The cache
/// is count-bounded (node-apn) or kept by fate within a memory limit small enough to fill;
/// rolling confirmation is sometimes on. The driver writes partially and advances a virtual
/// clock. `violations` lists every broken invariant (empty when the session behaved).
struct SessionSimulation: ~Copyable {
    struct Setup: CustomStringConvertible {
        var notifications = 150
        var command = Command.enhanced
        /// nil: kept by fate within `cacheMemoryLimit`.
        var cacheLength: Int? = 1000
        var cacheMemoryLimit = 96 << 20
        var confirmationInterval: Int?
        var tracksAcknowledgements = false
        var policy = SilentClosePolicy.resend
        var buffersNotifications = true

        var description: String {
            "\(notifications) notifications, command \(command.rawValue), "
                + (cacheLength.map { "cacheLength \($0)" } ?? "cache by fate within \(cacheMemoryLimit) bytes")
                + (confirmationInterval.map { ", confirming every \($0)" } ?? "")
                + (tracksAcknowledgements ? ", acknowledgements tracked" : "")
                + ", \(policy), buffers \(buffersNotifications)"
        }

        static func random(using random: inout SplitMix64) -> Setup {
            var setup = Setup()
            setup.command = Bool.random(using: &random) ? .enhanced : .frame
            setup.cacheLength = [2, 5, 20, 1000, nil, nil].randomElement(using: &random)!
            let entry = GatewaySession<SessionHarness.Tag>.cacheCharge(tokenCount: 32, payloadCount: 25)
            setup.cacheMemoryLimit = [3 * entry, 20 * entry, 96 << 20].randomElement(using: &random)!
            setup.confirmationInterval = Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 1...12, using: &random) : nil
            setup.tracksAcknowledgements = Bool.random(using: &random)
            setup.policy = Int.random(in: 0..<4, using: &random) == 0 ? .reportUnconfirmed : .resend
            setup.buffersNotifications = Int.random(in: 0..<6, using: &random) != 0
            return setup
        }
    }

    /// The gateway's side of one connection.
    struct ModelConnection {
        var decoder: GatewayDecoder
        /// Bytes the socket took that the network has not delivered yet.
        var network: [UInt8] = []
        /// The network delivers nothing before this (a congested or stalled path).
        var networkHeldUntil = Timestamp.zero
        /// Bytes delivered to the gateway's side: what its TCP acknowledged.
        var delivered: Int64 = 0
        /// Delivered bytes the gateway has not read yet.
        var unread: [UInt8] = []
        var lastGood: UInt32 = 0
        /// The answer decided on, not yet sent, and how many more frames to discard first.
        var answer: (bytes: [UInt8], discardFirst: Int)?
        /// Answer bytes on their way to the session, in parts.
        var sending: [[UInt8]] = []
        /// The gateway stopped accepting on this connection.
        var dead = false
    }

    enum Socket {
        case none, connecting, open(ModelConnection)
    }

    let seed: UInt64
    let setup: Setup
    var random: SplitMix64
    var session: GatewaySession<SessionHarness.Tag>
    var now = Timestamp.zero
    var timer: Timestamp?
    var socket = Socket.none
    var pushed = 0
    var flushRequests = 0
    var flushedEvents = 0
    var shutdownRequested = false
    var shutdownComplete = false
    var closeRequested = false
    var abortRequested = false

    /// The gateway's record: how often each tag was accepted, in order of first acceptance.
    var acceptedCount: [Int: Int] = [:]
    var firstAcceptance: [Int] = []
    var outcomes: [Int: NotificationOutcome] = [:]
    /// errorCallback calls naming each tag.
    var callbacks: [Int: [ErrorCallbackCode]] = [:]
    /// How often the cache filled, and the session waited for an acknowledgement (so a
    /// test can check these paths are exercised).
    var cacheFullEvents = 0
    var acknowledgementWaits = 0
    var violations: [String] = []
    /// What happened, step by step, when `tracing` is on (for a failing seed).
    var tracing = false
    var trace: [String] = []

    mutating func note(_ line: @autoclosure () -> String) {
        if tracing { trace.append("\(now) \(line())") }
    }

    init(seed: UInt64, notifications: Int = 150) {
        self.seed = seed
        random = SplitMix64(seed: seed)
        var setup = Setup.random(using: &random)
        setup.notifications = notifications
        self.setup = setup
        var configuration = SessionConfiguration()
        configuration.command = setup.command
        configuration.cacheLength = setup.cacheLength
        configuration.cacheMemoryLimit = setup.cacheMemoryLimit
        configuration.confirmationInterval = setup.confirmationInterval
        configuration.tracksAcknowledgements = setup.tracksAcknowledgements
        configuration.silentClosePolicy = setup.policy
        configuration.buffersNotifications = setup.buffersNotifications
        configuration.connectionRetryLimit = 0
        configuration.maxBackoff = .seconds(4)
        configuration.writeBatchBytes = 700
        session = GatewaySession<SessionHarness.Tag>(configuration: configuration)
    }

    /// The status a bad tag is rejected with; nil for a good tag. Fixed per tag, as a real
    /// gateway rejects a bad token every time. Every status of Apple's table but 10 (which
    /// the gateway sends as a shutdown, below), and 9 and 200, which are not in it.
    func badStatus(_ tag: Int) -> StatusCode? {
        var generator = SplitMix64(seed: seed &* 31 &+ UInt64(tag))
        guard Int.random(in: 0..<25, using: &generator) == 0 else { return nil }
        return [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 128, 200, 255].map { StatusCode(rawValue: $0) }
            .randomElement(using: &generator)!
    }

    mutating func chance(_ oneIn: Int) -> Bool {
        Int.random(in: 0..<oneIn, using: &random) == 0
    }

    // MARK: the run

    mutating func run() {
        var steps = 0
        while !(shutdownComplete && pushed == setup.notifications) {
            steps += 1
            if steps > 2_000_000 {
                violations.append("stalled after \(steps) steps at \(now)")
                break
            }
            step()
        }
        check()
    }

    mutating func step() {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1:
            if pushed < setup.notifications {
                for _ in 0..<Int.random(in: 1...4, using: &random) where pushed < setup.notifications {
                    pushed += 1
                    session.push(SessionHarness.handle(pushed), token: SessionHarness.token(pushed), payload: SessionHarness.payload(pushed), now: now)
                }
                if chance(15) {
                    flushRequests += 1
                    session.flush(now: now)
                }
            } else if !shutdownRequested {
                shutdownRequested = true
                session.shutdown(now: now)
            } else {
                advanceTime()
            }
        case 2:
            resolveConnect()
        case 3, 4:
            socketTakesBytes()
        case 5:
            networkDelivers()
        case 6:
            gatewayReads()
        case 7:
            gatewaySends()
        default:
            advanceTime()
        }
        drive()
        if session.awaitsAcknowledgement {
            // A driver asks the socket on every turn while bytes wait for acknowledgement.
            acknowledgementWaits += 1
            reportAcknowledgements()
            drive()
        }
    }

    /// Drains the session's actions, answering `close` and `abortConnect` as a driver does.
    mutating func drive() {
        while true {
            while let action = session.nextAction() { record(action) }
            if abortRequested {
                abortRequested = false
                socket = .none
                session.connectFailed(APNError(code: .connectionFailed, message: "aborted"), now: now)
            } else if closeRequested {
                closeRequested = false
                socket = .none
                session.closed(error: nil, now: now)
            } else {
                return
            }
        }
    }

    mutating func record(_ action: SessionAction<SessionHarness.Tag>) {
        switch action {
        case .connect:
            if case .none = socket { socket = .connecting } else { violations.append("connect while a socket exists") }
        case .abortConnect:
            abortRequested = true
        case .close:
            closeRequested = true
        case .write:
            break
        case .scheduleTimer(let at):
            timer = at
        case .event(.flushed):
            flushedEvents += 1
        case .event(.shutdownComplete):
            shutdownComplete = true
        case .event(.cacheFull):
            cacheFullEvents += 1
        case .event(let event):
            note("event \(SessionHarness.name(of: event))")
        case .errorCallback(let code, let handle):
            if let tag = SessionHarness.number(handle) { callbacks[tag, default: []].append(code) }
        case .outcome(let handle, let outcome):
            let tag = SessionHarness.number(handle)!
            note("outcome \(tag): \(outcome)")
            if let earlier = outcomes[tag] {
                violations.append("tag \(tag): second outcome \(outcome) after \(earlier)")
            }
            outcomes[tag] = outcome
        }
    }

    mutating func resolveConnect() {
        guard case .connecting = socket else { return advanceTime() }
        if chance(5) {
            socket = .none
            session.connectFailed(APNError(code: .connectionFailed, message: "refused"), now: now)
        } else {
            socket = .open(ModelConnection(decoder: GatewayDecoder()))
            session.connected(now: now)
        }
    }

    mutating func socketTakesBytes() {
        guard case .open(var connection) = socket else { return advanceTime() }
        let available = session.outboundBytes.readableBytes
        guard available > 0 else { return advanceTime() }
        let count = chance(2) ? available : Int.random(in: 1...available, using: &random)
        let taken = session.outboundBytes.readableBytesArray.prefix(count)
        if setup.tracksAcknowledgements {
            connection.network += taken
        } else {
            // Untracked, the session cannot tell a slow path from a quick one: the bytes
            // reach the gateway at once, as they did on the loopback the grace window was
            // sized for.
            connection.unread += taken
            connection.delivered += Int64(count)
        }
        socket = .open(connection)
        note("socket takes \(count) bytes")
        session.bytesWritten(count, now: now)
    }

    /// The network hands some of what it holds to the gateway's side, which acknowledges
    /// it. With acknowledgements tracked it sometimes holds everything for seconds, past
    /// the grace window (without them the session cannot know, so the path stays quick).
    mutating func networkDelivers() {
        guard case .open(var connection) = socket else { return advanceTime() }
        if setup.tracksAcknowledgements, chance(40) {
            // Mostly a hiccup shorter than the session's stall detection (500 ms), now and
            // then a hold past the grace window, which the session must take for a stall.
            let hold = chance(4) ? Int.random(in: 1_000...6_000, using: &random) : Int.random(in: 20...400, using: &random)
            connection.networkHeldUntil = now + .milliseconds(hold)
            note("the network holds everything until \(connection.networkHeldUntil)")
        }
        if !connection.network.isEmpty, connection.networkHeldUntil <= now {
            let count = chance(2) ? connection.network.count : Int.random(in: 1...connection.network.count, using: &random)
            connection.unread += connection.network.prefix(count)
            connection.network.removeFirst(count)
            connection.delivered += Int64(count)
        }
        socket = .open(connection)
        reportAcknowledgements()
    }

    /// What a driver does before each tick and close, and while the session waits for it.
    mutating func reportAcknowledgements() {
        guard setup.tracksAcknowledgements, case .open(let connection) = socket else { return }
        session.acknowledged(bytes: connection.delivered, now: now)
    }

    /// The gateway reads everything delivered to it and decides on each frame.
    mutating func gatewayReads() {
        guard case .open(var connection) = socket, !connection.unread.isEmpty else { return advanceTime() }
        connection.decoder.feed(connection.unread)
        connection.unread = []
        while !connection.dead || connection.answer != nil, let message = connection.decoder.next() {
            if var answer = connection.answer {
                // Discarding frames after the rejected one before answering.
                answer.discardFirst -= 1
                connection.answer = answer
                if answer.discardFirst <= 0 { send(answer.bytes, on: &connection) }
                continue
            }
            switch message {
            case .notification(let note):
                decide(note, on: &connection)
            case .rejected(let rejection):
                // A flush marker's empty token (or a malformed frame): status 2 and close.
                if let response = rejection.errorResponse { answer(response.status, response.identifier, on: &connection) }
            case .unknownCommand(let byte):
                violations.append("the session wrote unknown command \(byte)")
            }
            if connection.dead && connection.answer == nil { break }
        }
        if let answer = connection.answer {
            // Nothing more to discard right now: answer without waiting further.
            send(answer.bytes, on: &connection)
        }
        socket = .open(connection)
        if connection.dead, connection.sending.isEmpty, connection.answer == nil {
            silentlyClose()
        }
    }

    mutating func decide(_ note: DecodedNotification, on connection: inout ModelConnection) {
        let tag = SessionHarness.tag(of: note.token)
        let identifier = note.identifier ?? 0
        if let status = badStatus(tag) {
            let named = chance(4) ? (chance(2) ? 0 : 0xDEAD_BEEF) : identifier
            self.note("gateway rejects \(tag) (id \(identifier)) with \(status.rawValue), naming \(named)")
            answer(status, named, on: &connection)
        } else if chance(150) {
            self.note("gateway shuts down at \(tag) (id \(identifier)), last good \(connection.lastGood)")
            answer(.shutdown, connection.lastGood, on: &connection)
        } else if chance(150) {
            self.note("gateway drops the connection at \(tag) (id \(identifier))")
            connection.dead = true // silent close, or a reset: this frame is not taken
        } else {
            self.note("gateway takes \(tag) (id \(identifier))")
            acceptedCount[tag, default: 0] += 1
            if acceptedCount[tag] == 1 { firstAcceptance.append(tag) }
            connection.lastGood = identifier
        }
    }

    mutating func answer(_ status: StatusCode, _ identifier: UInt32, on connection: inout ModelConnection) {
        var buffer = WireBuffer()
        buffer.writeErrorResponse(status: status, identifier: identifier)
        connection.dead = true
        connection.answer = (buffer.readableBytesArray, chance(3) ? Int.random(in: 1...30, using: &random) : 0)
        if connection.answer!.discardFirst == 0 { send(buffer.readableBytesArray, on: &connection) }
    }

    mutating func send(_ bytes: [UInt8], on connection: inout ModelConnection) {
        connection.answer = nil
        if chance(3) {
            // Trickled: in two to six parts, each a step (and some time) apart.
            var cuts = Set((0..<Int.random(in: 1...5, using: &random)).map { _ in Int.random(in: 1..<bytes.count, using: &random) })
            cuts.insert(bytes.count)
            var start = 0
            connection.sending = cuts.sorted().map { end in
                defer { start = end }
                return Array(bytes[start..<end])
            }
        } else {
            connection.sending = [bytes]
        }
    }

    mutating func gatewaySends() {
        guard case .open(var connection) = socket, !connection.sending.isEmpty else { return advanceTime() }
        let part = connection.sending.removeFirst()
        note("gateway sends \(part)")
        socket = .open(connection)
        session.bytesReceived(part, now: now)
        if connection.sending.isEmpty, case .open = socket {
            // The gateway closes after its answer; the session usually closed first.
            silentlyClose()
        }
    }

    mutating func silentlyClose() {
        guard case .open = socket else { return }
        // What the network still held dies with the connection, never acknowledged.
        reportAcknowledgements()
        socket = .none
        closeRequested = false
        let error = chance(2) ? nil : APNError(code: .connectionFailed, message: "connection reset by peer")
        session.closed(error: error, now: now)
    }

    mutating func advanceTime() {
        let busy: Bool = switch socket {
        case .connecting: true
        case .open(let connection): !connection.unread.isEmpty || !connection.sending.isEmpty
            || !session.outboundBytes.isEmpty || !connection.network.isEmpty
        case .none: false
        }
        let idle = !busy && (pushed == setup.notifications)
        if idle, let timer, timer > now {
            now = timer // nothing else can happen before the timer
        } else {
            now = now + .milliseconds(Int.random(in: 1...30, using: &random))
        }
        if let due = timer, due <= now {
            timer = nil
            reportAcknowledgements()
            session.tick(now: now)
            drive()
            if let timer, timer <= now { violations.append("timer re-armed at \(timer), not after \(now)") }
        }
    }

    // MARK: invariants

    mutating func check() {
        for tag in 1...setup.notifications {
            let taken = acceptedCount[tag, default: 0]
            guard let outcome = outcomes[tag] else {
                violations.append("tag \(tag): no outcome (accepted \(taken)x by the gateway)")
                continue
            }
            switch outcome {
            case .accepted(let acceptance):
                if taken == 0 { violations.append("tag \(tag): reported \(outcome) but the gateway never took it") }
                if taken > 1, !acceptance.possiblyDuplicated {
                    violations.append("tag \(tag): taken \(taken)x but not marked possibly duplicated")
                }
                if taken > 2 { violations.append("tag \(tag): taken \(taken)x") }
            case .rejected(let status):
                let expected = badStatus(tag)
                if status != expected { violations.append("tag \(tag): rejected with \(status), gateway's status \(String(describing: expected))") }
                if taken > 0 { violations.append("tag \(tag): rejected but the gateway took it") }
            case .failed(let error):
                if taken > 0 { violations.append("tag \(tag): failed (\(error)) but the gateway took it") }
            case .unknownFate(.evictedFromCache):
                if taken > 0 { violations.append("tag \(tag): evicted as unknown but the gateway took it") }
            case .unknownFate(.unconfirmedAtClose), .unknownFate(.unattributedError):
                break
            case .unknownFate(.cancelled):
                violations.append("tag \(tag): cancelled, which only a caller's send can be")
            }
            if taken > 2 { violations.append("tag \(tag): taken \(taken)x (\(outcome))") }
            if taken > 0, !outcome.isAccepted, outcome != .unknownFate(.unconfirmedAtClose),
               outcome != .unknownFate(.unattributedError) {
                violations.append("tag \(tag): the gateway took it but the outcome is \(outcome)")
            }
        }
        for (tag, codes) in callbacks {
            if codes.count > 1 { violations.append("tag \(tag): errorCallback \(codes.count) times: \(codes)") }
            if outcomes[tag]?.isAccepted == true { violations.append("tag \(tag): errorCallback \(codes) but accepted") }
            if case .error? = codes.first, case .unknownFate? = outcomes[tag] {} else if case .error? = codes.first {
                violations.append("tag \(tag): errorCallback with a connection error, outcome \(String(describing: outcomes[tag]))")
            }
        }
        if session.cacheMemory != 0 {
            violations.append("the cache still counts \(session.cacheMemory) bytes with everything settled")
        }
        if firstAcceptance != firstAcceptance.sorted() {
            violations.append("order not kept: the gateway first took \(firstAcceptance.prefix(40))…")
        }
        if flushedEvents != flushRequests {
            violations.append("\(flushRequests) flushes asked, \(flushedEvents) ended")
        }
    }
}
