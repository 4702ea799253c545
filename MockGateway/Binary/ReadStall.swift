import APNGatewayServer

/// One connection's read stall (``MockGateway/Faults/stallReadsAfter``), from the moment it
/// struck: until when the connection reads nothing, and how it ends then. Kept by the
/// connection rather than derived from the pause, because a paused connection can be asked
/// again early (its waker, or any future reason to look): it must stay stalled until the
/// deadline, whatever wakes it, and only then end as the faults said.
struct ReadStall: Sendable {
    /// When the stall is over; `nil` for ``MockGateway/Faults/StallEnd/never``.
    let deadline: ContinuousClock.Instant?
    let end: MockGateway.Faults.StallEnd

    /// A stall that strikes at `now`, as the faults describe it.
    init(_ fault: Stall, now: ContinuousClock.Instant) {
        end = fault.end
        deadline = fault.end == .never ? nil : now + max(.zero, fault.duration)
    }

    /// What the stall makes of a look at `now`.
    enum Step {
        /// Still stalled: read nothing until this instant (`nil`: until the stop).
        case wait(until: ContinuousClock.Instant?)
        /// Over: read and judge again.
        case resume
        /// Over: end the connection so.
        case end(ConnectionEnd)
    }

    func step(at now: ContinuousClock.Instant) -> Step {
        guard let deadline else { return .wait(until: nil) }
        guard now >= deadline else { return .wait(until: deadline) }
        switch end {
        case .resume: return .resume
        case .close: return .end(.close)
        case .reset: return .end(.reset)
        // Unreachable (no deadline); kept total so a new ending must be decided here.
        case .never: return .wait(until: nil)
        }
    }
}

/// A read stall as the ledger decided it: how long, and how it ends.
struct Stall: Sendable {
    var duration: Duration
    var end: MockGateway.Faults.StallEnd
}
