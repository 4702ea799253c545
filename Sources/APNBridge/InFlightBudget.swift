import APNSupport
import Synchronization

/// The ``InFlightLedger`` every connection of a bridge shares, under a lock, with each
/// connection's waker: whom the ledger names is woken once the lock is released.
final class InFlightBudget: Sendable {
    private struct State {
        var ledger: InFlightLedger
        var wakers: [InFlightLedger.Ticket: WakeSignal] = [:]
    }

    private let state: Lock<State>

    /// A budget of `limit` notifications (nil: counted, unbounded), granted at most
    /// `grantLimit` at a time.
    init(limit: Int?, grantLimit: Int = BridgeConnectionHandler.batchLimit) {
        state = Lock(State(ledger: InFlightLedger(limit: limit, grantLimit: grantLimit)))
    }

    /// What the ledger says now.
    var snapshot: InFlightLedger { state.withLock { $0.ledger } }

    /// A connection joins; `waker` rises when room is handed to it.
    func join(_ waker: WakeSignal) -> InFlightLedger.Ticket {
        state.withLock { state in
            let ticket = state.ledger.join()
            state.wakers[ticket] = waker
            return ticket
        }
    }

    /// How many `ticket` may read now, at most `want`; 0: wait for its waker.
    func reserve(_ ticket: InFlightLedger.Ticket, want: Int) -> Int {
        state.withLock { $0.ledger.reserve(ticket, want: want) }
    }

    /// Gives back `count` of a reservation.
    func release(_ count: Int) {
        guard count > 0 else { return }
        wake { $0.release(count) }
    }

    /// The sessions hold `delta` more (or fewer).
    func adjust(by delta: Int) {
        guard delta != 0 else { return }
        wake { $0.adjust(by: delta) }
    }

    /// `ticket`'s connection closed.
    func leave(_ ticket: InFlightLedger.Ticket) {
        let woken = state.withLock { state in
            state.wakers[ticket] = nil
            return state.ledger.leave(ticket).compactMap { state.wakers[$0] }
        }
        for waker in woken { waker.signal() }
    }

    /// A new limit (a reload).
    func setLimit(_ limit: Int?) {
        wake { $0.setLimit(limit) }
    }

    private func wake(_ change: (inout InFlightLedger) -> [InFlightLedger.Ticket]) {
        let woken = state.withLock { state in change(&state.ledger).compactMap { state.wakers[$0] } }
        for waker in woken { waker.signal() }
    }
}
