/// When a quiet HTTP/2 connection is closed, and how: pure, so that the cases read in one
/// place. "Quiet" means the client sent no byte.
///
/// | the connection | quiet for | then |
/// |---|---|---|
/// | the client's preface and SETTINGS not received | ``HTTP2MockGateway/Configuration/idleTimeout`` | dropped without a GOAWAY: a peer that never spoke HTTP/2 holds a thread |
/// | established (its SETTINGS received) | the shorter of ``HTTP2MockGateway/Configuration/idleTimeout`` and ``HTTP2MockGateway/Faults/idleTimeout`` | a GOAWAY with `{"reason":"IdleTimeout"}` (once the streams it covers are answered), then the close, as Apple does |
/// | any, before a GOAWAY | ``HTTP2MockGateway/Faults/idleTimeout`` | that GOAWAY |
/// | a GOAWAY decided (for any reason) | ``HTTP2MockGateway/Configuration/idleTimeout`` again, counted from the GOAWAY or the client's last byte, whichever is later | dropped: a client that neither reads nor leaves |
struct IdleRule {
    /// ``HTTP2MockGateway/Configuration/idleTimeout``.
    let timeout: Duration?
    /// ``HTTP2MockGateway/Faults/idleTimeout``: a GOAWAY only, never a drop.
    var goawayTimeout: Duration?

    /// What the rule asks for now.
    enum Step: Equatable {
        case wait
        /// Decide a GOAWAY; `idleTimeout` when ``timeout`` (not the fault) asked for it,
        /// which counts in ``HTTP2MockGateway/Summary/idleTimeouts``.
        case goaway(idleTimeout: Bool)
        /// Close the connection at once; counts in ``HTTP2MockGateway/Summary/idleTimeouts``.
        case drop
    }

    /// The connection as the rule sees it.
    struct State {
        /// When the client last sent a byte (or the connection started).
        var quietSince: ContinuousClock.Instant
        /// Whether the client's SETTINGS arrived (its preface with them).
        var established = false
        /// When a GOAWAY was decided; `nil` before.
        var goawaySince: ContinuousClock.Instant?
    }

    func step(_ state: State, at now: ContinuousClock.Instant) -> Step {
        if let drop = dropDeadline(state), now >= drop { return .drop }
        guard state.goawaySince == nil else { return .wait }
        let byTimeout = state.established ? timeout.map { state.quietSince + $0 } : nil
        let byFault = goawayTimeout.map { state.quietSince + $0 }
        if let byTimeout, now >= byTimeout { return .goaway(idleTimeout: true) }
        if let byFault, now >= byFault { return .goaway(idleTimeout: false) }
        return .wait
    }

    /// When ``step(_:at:)`` next asks for something; `nil`: never by itself.
    func deadline(_ state: State) -> ContinuousClock.Instant? {
        guard state.goawaySince == nil else { return dropDeadline(state) }
        let byTimeout = timeout.map { state.quietSince + $0 }
        let byFault = goawayTimeout.map { state.quietSince + $0 }
        return [byTimeout, byFault].compactMap { $0 }.min()
    }

    private func dropDeadline(_ state: State) -> ContinuousClock.Instant? {
        guard let timeout else { return nil }
        if let goawaySince = state.goawaySince { return max(state.quietSince, goawaySince) + timeout }
        return state.established ? nil : state.quietSince + timeout
    }
}
