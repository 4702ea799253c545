import APNTLS

extension BinaryConnection {
    /// Answers with an error response as `reply` shapes it, then closes. First the lag:
    /// read and throw away ``ErrorReply/lag`` more notifications, or until the client has
    /// sent nothing for ``ErrorReply/lagIdleTimeout``. Then the delay, still reading and
    /// throwing away. Then the 6 bytes: at once, in two records, or trickled a byte at a
    /// time. How many notifications were thrown away before writing goes to the handler
    /// (``BinaryConnectionHandler/discardedBeforeAnswer(_:)``). These waits watch the stop
    /// only: the handler has decided, so its waker no longer matters.
    func answer(_ reply: ErrorReply, handler: inout Policy.Handler, input: inout ConnectionInput) {
        if reply.waits {
            var discarded = 0
            guard discardForLag(reply.lag, input: &input, count: &discarded),
                reply.delay == .zero || discard(until: .now + reply.delay, input: &input, count: &discarded)
            else {
                driver.connection.close()
                return
            }
            handler.discardedBeforeAnswer(discarded)
        }
        guard write(reply, input: &input) else {
            driver.connection.close()
            return
        }
        driver.finish(closeNotify: true, linger: settings.lingerTimeout)
    }

    /// Writes the 6 bytes as `reply` says; `false` when a write failed or the server is
    /// stopping.
    private func write(_ reply: ErrorReply, input: inout ConnectionInput) -> Bool {
        if let interval = reply.byteInterval {
            var ignored = 0
            for index in reply.bytes.indices {
                if index > reply.bytes.startIndex {
                    guard discard(until: .now + interval, input: &input, count: &ignored) else { return false }
                }
                guard driver.writeAll(reply.bytes[index...index], deadline: .now + .seconds(5)) else { return false }
            }
            return true
        }
        let deadline = ContinuousClock.now + .seconds(5)
        let parts = reply.split ? [reply.bytes[..<2], reply.bytes[2...]] : [reply.bytes[...]]
        return parts.allSatisfy { driver.writeAll($0, deadline: deadline) }
    }

    /// Throws away what is held, then reads and throws away, until `count` reaches `lag`
    /// or the client is idle or finished; `false` when the server is stopping.
    private func discardForLag(_ lag: Int, input: inout ConnectionInput, count: inout Int) -> Bool {
        var lastArrival = ContinuousClock.now
        while true {
            count += input.discardHeld(limit: lag - count)
            guard count < lag, !input.peerFinished else { return true }
            switch input.readIntoDecoder(driver, until: lastArrival + ErrorReply.lagIdleTimeout) {
            case .bytes: lastArrival = .now
            case .timedOut: return true
            case .ended, .woken: if server.isStopping { return false }
            }
        }
    }

    /// Throws away what is held, then reads and throws away until `deadline`, counting the
    /// notifications; `false` when the server is stopping.
    private func discard(until deadline: ContinuousClock.Instant, input: inout ConnectionInput, count: inout Int)
        -> Bool
    {
        while true {
            count += input.discardHeld(limit: .max)
            guard ContinuousClock.now < deadline else { return true }
            if input.peerFinished { return server.pause(until: deadline) }
            if case .ended = input.readIntoDecoder(driver, until: deadline), server.isStopping { return false }
        }
    }
}
