import APN
import APNWire
import Testing

/// Drives a `GatewaySession` by hand for table-style tests: the tag of notification
/// `n` names `n` (see ``handle(_:)``), and its token is 32 bytes ending in `n`, so the bytes the session writes can
/// be decoded back to tags. Every action is recorded; outcomes are checked to be unique.
struct SessionHarness: ~Copyable {
    var session: GatewaySession<Tag>
    var now = Timestamp.zero
    var outcomes: [Int: NotificationOutcome] = [:]
    var outcomeOrder: [Int] = []
    /// Event names, e.g. `transmitted(3)`, `cacheTooSmall(6)`, `flushed(true)`.
    var events: [String] = []
    var callbacks: [(code: ErrorCallbackCode, tag: Int?)] = []
    var connectRequests = 0
    var abortRequests = 0
    var closeRequests = 0
    var timer: Timestamp?
    var duplicateOutcomes: [Int] = []
    /// The gateway's view of the current connection's byte stream.
    var gateway = GatewayDecoder()
    /// Bytes the socket took on the current connection.
    var takenBytes: Int64 = 0
    /// The session asked for a write (`write`) and the socket has not taken everything
    /// since: the driver writes only then, so bytes encoded without it would never go out.
    var writeAsked = false

    init(_ configure: (inout SessionConfiguration) -> Void = { _ in }) {
        var configuration = SessionConfiguration()
        configure(&configuration)
        session = GatewaySession<Tag>(configuration: configuration)
    }

    static func token(_ tag: Int) -> [UInt8] {
        [UInt8](repeating: 0xA0, count: 28) + withUnsafeBytes(of: UInt32(tag).bigEndian) { Array($0) }
    }

    static func tag(of token: [UInt8]) -> Int {
        Int(token.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    /// The object behind the handles of notifications `first ..< first + 4`, as a
    /// connection's push record stands for a batch of notifications.
    final class Tag {
        let first: Int
        init(first: Int) { self.first = first }
    }

    /// The session's handle for notification `n`: a batch object and an index into it, so
    /// a report names `n` only if the session kept both (an index lost on some path turns
    /// into the wrong number).
    static func handle(_ n: Int) -> SessionTag<Tag> {
        SessionTag(Tag(first: n & ~3), index: UInt32(n & 3))
    }

    static func number(_ tag: SessionTag<Tag>?) -> Int? {
        tag.map { $0.record.first + Int($0.index) }
    }

    static func payload(_ tag: Int) -> [UInt8] {
        Array(#"{"aps":{"alert":"n\#(tag)"}}"#.utf8)
    }

    mutating func drain() {
        while let action = session.nextAction() {
            switch action {
            case .connect: connectRequests += 1
            case .abortConnect: abortRequests += 1
            case .write:
                #expect(!session.outboundBytes.isEmpty, "write asked with nothing to write")
                writeAsked = true
            case .close:
                closeRequests += 1
                writeAsked = false
            case .scheduleTimer(let at): timer = at
            case .event(let event): events.append(Self.name(of: event))
            case .errorCallback(let code, let tag): callbacks.append((code, Self.number(tag)))
            case .outcome(let handle, let outcome):
                let tag = Self.number(handle)!
                if outcomes[tag] != nil { duplicateOutcomes.append(tag) }
                outcomes[tag] = outcome
                outcomeOrder.append(tag)
            }
        }
    }

    // MARK: inputs

    mutating func push(_ tags: ClosedRange<Int>, retryLimit: Int = -1) {
        for tag in tags {
            session.push(Self.handle(tag), token: Self.token(tag), payload: Self.payload(tag), retryLimit: retryLimit, now: now)
        }
        drain()
    }

    mutating func connected() {
        gateway = GatewayDecoder()
        takenBytes = 0
        writeAsked = false
        session.connected(now: now)
        drain()
    }

    mutating func connectFailed(_ error: APNError = APNError(code: .connectionFailed, message: "refused")) {
        session.connectFailed(error, now: now)
        drain()
    }

    /// The socket takes `count` bytes (all by default); returns the tags and identifiers
    /// of the frames it took whole, decoded by the gateway-side decoder.
    @discardableResult
    mutating func write(_ count: Int? = nil) -> [(tag: Int, identifier: UInt32)] {
        let bytes = session.outboundBytes.readableBytesArray
        let taken = Array(bytes.prefix(count ?? bytes.count))
        if !bytes.isEmpty { #expect(writeAsked, "bytes to write, but no write was asked for") }
        if taken.count == bytes.count { writeAsked = false }
        takenBytes += Int64(taken.count)
        session.bytesWritten(taken.count, now: now)
        drain()
        gateway.feed(taken)
        var frames: [(Int, UInt32)] = []
        while let message = gateway.next() {
            switch message {
            case .notification(let note): frames.append((Self.tag(of: note.token), note.identifier ?? 0))
            case .rejected(let rejection):
                // A flush marker; the gateway would close here, the harness reads on.
                frames.append((-1, rejection.identifier ?? 0))
                gateway = GatewayDecoder()
            case .unknownCommand: Issue.record("session wrote an unknown command")
            }
        }
        return frames
    }

    mutating func receive(_ bytes: [UInt8]) {
        session.bytesReceived(bytes, now: now)
        drain()
    }

    mutating func respond(_ status: StatusCode, _ identifier: UInt32) {
        var buffer = WireBuffer()
        buffer.writeErrorResponse(status: status, identifier: identifier)
        receive(buffer.readableBytesArray)
    }

    /// The peer's TCP acknowledged the first `bytes` bytes taken (all of them by default).
    mutating func acknowledge(_ bytes: Int64? = nil) {
        session.acknowledged(bytes: bytes ?? takenBytes, now: now)
        drain()
    }

    mutating func closed(_ error: APNError? = nil) {
        writeAsked = false
        session.closed(error: error, now: now)
        drain()
    }

    mutating func advance(_ seconds: Double) {
        now = now + .milliseconds(Int64(seconds * 1000))
        timer = nil
        session.tick(now: now)
        drain()
        // Everything due by now was handled: a timer asked for now or earlier would spin.
        if let timer, timer <= now { Issue.record("timer re-armed at \(timer), not after \(now)") }
    }

    // MARK: queries

    func outcome(_ tag: Int) -> NotificationOutcome? { outcomes[tag] }

    /// The error code of a `failed` outcome.
    func failureCode(_ tag: Int) -> APNError.Code? {
        if case .failed(let error)? = outcomes[tag] { error.code } else { nil }
    }

    func tags(where predicate: (NotificationOutcome) -> Bool) -> [Int] {
        outcomes.filter { predicate($0.value) }.keys.sorted()
    }

    static func name(of event: SessionEvent<Tag>) -> String {
        switch event {
        case .connected: "connected"
        case .disconnected: "disconnected"
        case .timeout: "timeout"
        case .transmitted(let tag): "transmitted(\(number(tag)!))"
        case .completed: "completed"
        case .transmissionError(let status, let tag):
            "transmissionError(\(status.rawValue),\(number(tag).map(String.init) ?? "nil"))"
        case .cacheTooSmall(let shortfall): "cacheTooSmall(\(shortfall))"
        case .cacheFull(let limit): "cacheFull(\(limit))"
        case .graceWindowTooShort(let count): "graceWindowTooShort(\(count))"
        case .socketError(let error): "socketError(\(error.code))"
        case .connectAttemptFailed(let error, let next):
            "connectAttemptFailed(\(error.code), \(next.map { "\($0.components.seconds)s" } ?? "nil"))"
        case .error(let error): "error(\(error.code))"
        case .flushed(let confirmed): "flushed(\(confirmed))"
        case .shutdownComplete: "shutdownComplete"
        }
    }

    /// The notifications reported `transmitted`, in order.
    var transmitted: [Int] {
        events.compactMap { name in
            name.hasPrefix("transmitted(") ? Int(name.dropFirst(12).dropLast()) : nil
        }
    }

    /// Event names without the per-notification `transmitted`.
    var milestones: [String] { events.filter { !$0.hasPrefix("transmitted") } }
}

func accepted(_ evidence: Acceptance.Evidence) -> NotificationOutcome {
    .accepted(Acceptance(evidence: evidence))
}

func acceptedTwice(_ evidence: Acceptance.Evidence) -> NotificationOutcome {
    .accepted(Acceptance(evidence: evidence, possiblyDuplicated: true))
}
