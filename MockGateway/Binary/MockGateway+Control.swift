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
    ///
    /// - Throws: ``FeedbackTokenError`` when the token is longer than a tuple's 16-bit
    ///   length field can announce (65,535 bytes); nothing is queued then.
    public func queueFeedback(time: UInt32, token: [UInt8]) throws(FeedbackTokenError) {
        guard token.count <= FeedbackTokenError.maximumLength else { throw FeedbackTokenError(length: token.count) }
        shared.update { $0.feedbackQueue.append((time: time, token: token)) }
    }
}

extension MockGateway {
    /// A feedback token ``MockGateway/queueFeedback(time:token:)`` refused: a tuple cannot
    /// carry it (a local error: the tuple asked for cannot be put on the wire).
    public struct FeedbackTokenError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The longest token a tuple can carry: its length field is 16 bits.
        public static let maximumLength = 0xFFFF
        /// The refused token's length in bytes.
        public let length: Int

        /// An error for a token of `length` bytes.
        public init(length: Int) {
            self.length = length
        }

        /// One line saying what was refused and why.
        public var description: String {
            "a feedback token of \(length) bytes is longer than a tuple's 16-bit length field allows (at most \(Self.maximumLength))"
        }
    }
}
