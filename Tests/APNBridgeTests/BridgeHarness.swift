import APNBridge
import APNWire
import Testing

/// Plays the bridge's driver for one tenant: its connections' sessions share one
/// `ResendRecord`, `remember` actions go into it, and the relays `settle` returns are
/// handed to the session they name. Every action is recorded by name (see
/// ``name(of:)``); ``actions(_:)`` returns those not yet looked at.
///
/// Notification `n` has a token ending in `n` and a payload naming `n`, so the content,
/// and with it the resend key, is the same for the same `n` whatever its identifier;
/// the identifier is `100 + n` unless a test gives another.
struct BridgeHarness {
    var record: ResendRecord
    var sessions: [UInt64: BridgeSession] = [:]
    /// What went upstream, in order: (connection, ordinal, n).
    var upstream: [(connection: UInt64, ordinal: Int, n: Int)] = []
    /// The record's clock, as elapsed since the test began.
    var now: Duration = .zero
    private var unseen: [UInt64: [String]] = [:]
    private var closedConnections: Set<UInt64> = []
    private var finishedConnections: Set<UInt64> = []
    private var nextConnection: UInt64 = 1

    init(retention: Duration = ResendRecord.defaultRetention, capacity: Int = ResendRecord.defaultCapacity) {
        record = ResendRecord(retention: retention, capacity: capacity)
    }

    // MARK: notifications

    static func token(_ n: Int) -> [UInt8] {
        [UInt8](repeating: 0xB0, count: 28) + withUnsafeBytes(of: UInt32(n).bigEndian) { Array($0) }
    }

    static func n(of token: [UInt8]) -> Int {
        Int(token.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    /// Notification `n` in `command`'s format: command 0 has no identifier or expiry,
    /// command 1 no priority.
    static func note(_ n: Int, identifier: UInt32? = nil, command: Command = .enhanced) -> BridgedNotification {
        BridgedNotification(
            command: command, identifier: command == .simple ? 0 : identifier ?? UInt32(100 + n),
            token: token(n), payload: Array(#"{"aps":{"alert":"n\#(n)"}}"#.utf8),
            expiry: command == .simple ? nil : 1_700_000_000, priority: command == .frame ? 10 : nil)
    }

    static func key(_ n: Int) -> ResendKey { note(n).resendKey }

    // MARK: inputs

    /// Opens a connection (a new session) and returns its number.
    mutating func connect(window: Int = BridgeSession.defaultWindow) -> UInt64 {
        let connection = nextConnection
        nextConnection += 1
        sessions[connection] = BridgeSession(connection: connection, window: window)
        return connection
    }

    /// Feeds notifications `ns` (identifier `100 + n`); returns their ordinals.
    @discardableResult
    mutating func receive(_ connection: UInt64, _ ns: some Sequence<Int>) -> [Int?] {
        send(connection, ns.map { Self.note($0) })
    }

    /// Feeds these notifications; returns their ordinals (nil: not read).
    @discardableResult
    mutating func send(_ connection: UInt64, _ notes: [BridgedNotification]) -> [Int?] {
        notes.map { note in
            let ordinal = sessions[connection]!.received(note, record: &record, now: now)
            drain(connection)
            return ordinal
        }
    }

    /// Feeds notification `n` as one whose token the upstream called bad (rule 10).
    mutating func receiveKnownBad(_ connection: UInt64, _ n: Int) {
        _ = sessions[connection]!.received(Self.note(n), record: &record, now: now, knownRefusal: .invalidToken)
        drain(connection)
    }

    mutating func answer(_ connection: UInt64, _ ordinal: Int, _ answer: BridgeAnswer) {
        sessions[connection]!.answered(ordinal, answer)
        drain(connection)
    }

    mutating func answer(_ connection: UInt64, _ ordinals: some Sequence<Int>, _ answer: BridgeAnswer) {
        for ordinal in ordinals { self.answer(connection, ordinal, answer) }
    }

    mutating func locallyRefused(
        _ connection: UInt64, _ status: StatusCode, identifier: UInt32, command: Command = .enhanced
    ) {
        sessions[connection]!.locallyRefused(status, identifier: identifier, command: command)
        drain(connection)
    }

    mutating func unknownCommand(_ connection: UInt64) {
        sessions[connection]!.unknownCommand()
        drain(connection)
    }

    mutating func shutdown(_ connection: UInt64, readingOn: Bool = false) {
        sessions[connection]!.shutdown(readingOn: readingOn)
        drain(connection)
    }

    mutating func graceExpired(_ connection: UInt64) {
        sessions[connection]!.graceExpired()
        drain(connection)
    }

    mutating func clientClosed(_ connection: UInt64) {
        closedConnections.insert(connection)
        sessions[connection]!.clientClosed()
        drain(connection)
    }

    mutating func advance(seconds: Double) {
        now += .milliseconds(Int64(seconds * 1000))
    }

    // MARK: queries

    /// The actions of `connection` since the last call, by name.
    mutating func actions(_ connection: UInt64) -> [String] {
        defer { unseen[connection] = [] }
        return unseen[connection] ?? []
    }

    func session(_ connection: UInt64) -> BridgeSession { sessions[connection]! }

    /// The notifications `connection` forwarded, by `n`.
    func forwarded(by connection: UInt64) -> [Int] {
        upstream.filter { $0.connection == connection }.map(\.n)
    }

    // MARK: the driver

    private mutating func drain(_ connection: UInt64) {
        var relays: [ResendRecord.Relay] = []
        while let action = sessions[connection]!.nextAction() {
            let name = Self.name(of: action)
            unseen[connection, default: []].append(name)
            if finishedConnections.contains(connection) { Issue.record("\(name) after finished") }
            if closedConnections.contains(connection) {
                switch action {
                case .forward, .writeErrorResponse, .close, .pauseReading, .resumeReading, .stopReading:
                    Issue.record("\(name) on connection \(connection) after it was over")
                case .queueFeedback, .remember, .rememberAnswer, .refusalDistance, .finished:
                    break
                }
            }
            switch action {
            case .forward(let ordinal, let note):
                upstream.append((connection, ordinal, Self.n(of: note.token)))
            case .remember(let arrival, let key, let answer):
                #expect(arrival.connection == connection)
                record.insert(key, answer: answer, from: arrival, now: now)
            case .rememberAnswer(let arrival, let answer):
                if let relay = record.settle(arrival, with: answer, now: now) { relays.append(relay) }
            case .close:
                closedConnections.insert(connection)
            case .finished:
                #expect(sessions[connection]!.isFinished)
                closedConnections.insert(connection)
                finishedConnections.insert(connection)
            case .queueFeedback, .pauseReading, .resumeReading, .stopReading, .writeErrorResponse, .refusalDistance:
                break
            }
        }
        for relay in relays {
            answer(relay.claimant.connection, relay.claimant.ordinal, relay.answer)
        }
    }

    /// `forward(3)`, `feedback(1,1700000000)`, `pause`, `resume`, `stop`,
    /// `remember(6,accepted)`, `answer(9,refused 8)`, `error(8,105)`, `close`, `distance(3)`,
    /// `finished`.
    static func name(of action: BridgeAction) -> String {
        switch action {
        case .forward(let ordinal, _): "forward(\(ordinal))"
        case .queueFeedback(let token, let since): "feedback(\(n(of: token)),\(since))"
        case .pauseReading: "pause"
        case .resumeReading: "resume"
        case .stopReading: "stop"
        case .remember(let arrival, _, let answer): "remember(\(arrival.ordinal),\(name(of: answer)))"
        case .rememberAnswer(let arrival, let answer): "answer(\(arrival.ordinal),\(name(of: answer)))"
        case .writeErrorResponse(let status, let identifier): "error(\(status.rawValue),\(identifier))"
        case .close: "close"
        case .refusalDistance(let notifications): "distance(\(notifications))"
        case .finished: "finished"
        }
    }

    static func name(of answer: BridgeAnswer) -> String {
        switch answer {
        case .accepted: "accepted"
        case .unregistered: "unregistered"
        case .refused(let status): "refused \(status.rawValue)"
        case .bridgeFailure: "bridgeFailure"
        case .maybeDelivered: "maybeDelivered"
        }
    }

    static func name(of answer: ResendRecord.Answer) -> String {
        switch answer {
        case .accepted: "accepted"
        case .maybeDelivered: "maybeDelivered"
        case .refused(let status): "refused \(status.rawValue)"
        case .pending: "pending"
        }
    }
}

/// `forward(0)` … `forward(n - 1)`.
func forwards(_ ordinals: ClosedRange<Int>) -> [String] {
    ordinals.map { "forward(\($0))" }
}
