import APN
import TestSupport

/// A seeded, randomized run of a `GatewaySession` against an in-memory gateway built on
/// APNWire's gateway-side decoder. The gateway rejects a fixed set of "bad" notifications
/// (each with its own status), and at random: answers with identifier 0, holds its answer
/// back while it discards more frames (so the cache falls short), sends status 10, splits
/// its answer, closes silently, resets; connection attempts fail at random. The driver
/// writes partially and advances a virtual clock. `violations` lists every broken
/// invariant (empty when the session behaved).
struct SessionSimulation: ~Copyable {
    struct Setup: CustomStringConvertible {
        var notifications = 150
        var command = Command.enhanced
        var cacheLength = 1000
        var policy = SilentClosePolicy.resend
        var buffersNotifications = true

        var description: String {
            "\(notifications) notifications, command \(command.rawValue), cacheLength \(cacheLength), "
                + "\(policy), buffers \(buffersNotifications)"
        }

        static func random(using random: inout SplitMix64) -> Setup {
            var setup = Setup()
            setup.command = Bool.random(using: &random) ? .enhanced : .frame
            setup.cacheLength = [2, 5, 20, 1000].randomElement(using: &random)!
            setup.policy = Int.random(in: 0..<4, using: &random) == 0 ? .reportUnconfirmed : .resend
            setup.buffersNotifications = Int.random(in: 0..<6, using: &random) != 0
            return setup
        }
    }

    /// The gateway's side of one connection.
    struct ModelConnection {
        var decoder: GatewayDecoder
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
    var session: GatewaySession
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
        configuration.silentClosePolicy = setup.policy
        configuration.buffersNotifications = setup.buffersNotifications
        configuration.connectionRetryLimit = 0
        configuration.maxBackoff = .seconds(4)
        configuration.writeBatchBytes = 700
        session = GatewaySession(configuration: configuration)
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
        case 5, 6:
            gatewayReads()
        case 7:
            gatewaySends()
        default:
            advanceTime()
        }
        drive()
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

    mutating func record(_ action: SessionAction) {
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
        case .event(let event):
            note("event \(SessionHarness.name(of: event))")
        case .errorCallback:
            break
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
        connection.unread += session.outboundBytes.readableBytesArray.prefix(count)
        socket = .open(connection)
        note("socket takes \(count) bytes")
        session.bytesWritten(count, now: now)
    }

    /// The gateway reads everything it was sent and decides on each frame.
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
            let named = chance(4) ? 0 : identifier
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
            let cut = Int.random(in: 1..<bytes.count, using: &random)
            connection.sending = [Array(bytes[..<cut]), Array(bytes[cut...])]
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
        socket = .none
        closeRequested = false
        let error = chance(2) ? nil : APNError(code: .connectionFailed, message: "connection reset by peer")
        session.closed(error: error, now: now)
    }

    mutating func advanceTime() {
        let busy: Bool = switch socket {
        case .connecting: true
        case .open(let connection): !connection.unread.isEmpty || !connection.sending.isEmpty
            || !session.outboundBytes.isEmpty
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
            session.tick(now: now)
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
            case .rejected(let status):
                let expected = badStatus(tag).map { $0.isKnown ? $0 : .unknown }
                if status != expected { violations.append("tag \(tag): rejected with \(status), gateway's status \(String(describing: expected))") }
                if taken > 0 { violations.append("tag \(tag): rejected but the gateway took it") }
            case .failed(let error):
                if taken > 0 { violations.append("tag \(tag): failed (\(error)) but the gateway took it") }
            case .unknownFate(.evictedFromCache):
                if taken > 0 { violations.append("tag \(tag): evicted as unknown but the gateway took it") }
            case .unknownFate(.unconfirmedAtClose), .unknownFate(.unattributedError):
                break
            }
            if taken > 0, !outcome.isAccepted, outcome != .unknownFate(.unconfirmedAtClose),
               outcome != .unknownFate(.unattributedError) {
                violations.append("tag \(tag): the gateway took it but the outcome is \(outcome)")
            }
        }
        if firstAcceptance != firstAcceptance.sorted() {
            violations.append("order not kept: the gateway first took \(firstAcceptance.prefix(40))…")
        }
        if flushedEvents != flushRequests {
            violations.append("\(flushRequests) flushes asked, \(flushedEvents) ended")
        }
    }
}
