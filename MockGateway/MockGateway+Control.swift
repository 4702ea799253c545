extension MockGateway {
    /// The faults in force now (one-shot faults that fired are cleared).
    public var faults: Faults {
        shared.read { $0.faults }
    }

    /// Replaces the faults; notifications decoded from now on are judged against them.
    public func setFaults(_ faults: Faults) {
        shared.updateFaults { $0 = faults }
    }

    /// Changes the faults in place, atomically with respect to the connections judging
    /// notifications (e.g. `gateway.updateFaults { $0.rejectIdentifier(5) }`).
    public func updateFaults(_ change: (inout Faults) -> Void) {
        shared.updateFaults(change)
    }

    /// Queues a feedback tuple: the next feedback connection serves it, then forgets it.
    public func queueFeedback(time: UInt32, token: [UInt8]) {
        shared.update { $0.feedbackQueue.append((time: time, token: token)) }
    }
}
