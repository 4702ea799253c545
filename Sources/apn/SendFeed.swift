import APNSupport
import APN
import Synchronization

/// Hands `apn send`'s notifications to the connection a chunk at a time: the next chunk
/// once the connection reports everything so far written (``ConnectionEvent/completed``),
/// or, when it had waited for recipients still being read (``RecipientSupply``), once they
/// are. So a stop leaves at most a chunk or two queued ahead of the socket, and what was never
/// handed over is known to be unsent — the connection itself cannot take back what is
/// queued. A chunk takes about 4 ms at full speed (2 M/s): one hop through the callback
/// queue per chunk costs well under 1 %.
final class SendFeed: Sendable {
    /// Notifications handed over at a time.
    static let chunkSize = 8192

    private let connection: Connection
    private let notification: APN.Notification
    private let recipients: RecipientSupply
    private let outcomes: @Sendable (Int, NotificationOutcome) -> Void
    /// The position of the next notification to hand over, whether to stop, and whether
    /// to hand over all there is at once (``pushRest()``).
    private let position = Lock((next: 0, stopped: false, all: false))

    /// Opens once every notification was handed over.
    let fed = Latch()

    /// `outcomes` is called with each notification's index among the recipients and its
    /// outcome.
    init(
        connection: Connection, notification: APN.Notification, recipients: RecipientSupply,
        outcomes: @escaping @Sendable (Int, NotificationOutcome) -> Void
    ) {
        self.connection = connection
        self.notification = notification
        self.recipients = recipients
        self.outcomes = outcomes
    }

    /// Hands over the next chunk (the connection wrote everything before it, or more
    /// recipients were read after it waited for them).
    func pushNext() {
        push(upTo: Self.chunkSize)
    }

    /// Hands over everything left at once, and what is read later as it is: the connection
    /// gave up (513, 514), so each fails at once (515) rather than waiting for a `completed`
    /// that will not come.
    func pushRest() {
        position.withLock { $0.all = true }
        push(upTo: .max)
    }

    /// Hands nothing more over; returns how many were.
    func stop() -> Int {
        position.withLock { position in
            position.stopped = true
            return position.next
        }
    }

    private func push(upTo limit: Int) {
        let done = position.withLock { position -> Bool in
            guard !position.stopped else { return false }
            let start = position.next
            let chunk = recipients.take(from: start, limit: position.all ? .max : limit) { [weak self] in
                self?.pushNext()
            }
            switch chunk {
            case .end:
                return true
            case .pending:
                return false
            case .devices(let devices, let isLast):
                let outcomes = outcomes
                // Pushed under the lock, so chunks reach the connection in order.
                connection.push(notification, to: devices) { index, outcome in
                    outcomes(start + index, outcome)
                }
                position.next = start + devices.count
                return isLast
            }
        }
        if done { fed.open() }
    }
}

/// What an `apn send` knows of its notifications' outcomes as they come, for the lines of
/// an interrupted send (and every line with `--all`).
final class OutcomeBook: Sendable {
    /// The outcomes so far.
    struct State: Sendable {
        /// Whether each notification has its outcome.
        var settled: [Bool]
        /// The outcomes other than accepted, by index.
        var notAccepted: [Int: NotificationOutcome] = [:]
        /// Every outcome, with `--all`.
        var all: [NotificationOutcome?]?
        var accepted = 0
        var possiblyDuplicated = 0
    }

    private let state: Lock<State>

    /// Room for `count` notifications at first; more as they come (the recipients may
    /// still be read while the first are sent).
    init(count: Int, keepsAll: Bool) {
        state = Lock(State(settled: Array(repeating: false, count: count), all: keepsAll ? Array(repeating: nil, count: count) : nil))
    }

    func record(_ index: Int, _ outcome: NotificationOutcome) {
        state.withLock { state in
            if index >= state.settled.count {
                let more = max(index + 1, 2 * state.settled.count) - state.settled.count
                state.settled.append(contentsOf: repeatElement(false, count: more))
                state.all?.append(contentsOf: repeatElement(nil, count: more))
            }
            state.settled[index] = true
            state.all?[index] = outcome
            if case .accepted(let acceptance) = outcome {
                state.accepted += 1
                if acceptance.possiblyDuplicated { state.possiblyDuplicated += 1 }
            } else {
                state.notAccepted[index] = outcome
            }
        }
    }

    /// The outcomes now.
    func snapshot() -> State {
        state.withLock { $0 }
    }
}
