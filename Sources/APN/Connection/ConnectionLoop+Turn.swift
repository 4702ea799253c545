import Glibc
import APNTLS

// The connection's loop at the named points of a ``PollDriver``'s turn. Its writes go with
// its reads (``service(_:)``): a socket is written until it would block, with a read every
// few writes, so `flushSockets` has nothing left to do.
extension ConnectionLoop: PollDriven {
    /// Until the pool said `stop`.
    var isRunning: Bool { !stopped }

    /// Takes the turn's time; the pushes handled on it start counting again.
    mutating func beginTurn(now: Timestamp) {
        self.now = now
        handledSinceClockRead = 0
    }

    /// Writes and reads every connected socket (``service(_:)``).
    mutating func serviceSockets() {
        for slot in sockets.indices where sockets[slot].tls != nil { service(slot) }
    }

    /// Ticks the due timers, then asks the watched sockets what the peer acknowledged.
    mutating func fireTimers() {
        tickDueTimers()
        reportWatchedAcknowledgements()
    }

    /// The pool's checks across all slots.
    mutating func endOfTurn() {
        pool.endOfTurn(now: now)
    }

    /// Nothing: written in ``serviceSockets()``.
    mutating func flushSockets() {}

    /// The turn's reports, as one block on the callback queue.
    mutating func finishTurn() {
        dispatcher.flush()
    }

    /// A timer or an acknowledgement can let a session encode more (a paced window opened,
    /// cache room freed): write it before sleeping on the timers.
    mutating func sleepTimeout() -> Int32 {
        hasUnwrittenBytes ? 0 : pollTimeout()
    }

    /// Commands keep coming, so the loop does not sleep; a blocked socket's writability
    /// must still be learnt, or nothing more would be written.
    var pollsWhileBusy: Bool {
        sockets.contains(where: { $0.writeBlocked })
    }

    /// Every connected socket: readable, and writable while a write is blocked.
    func appendPollDescriptors(to descriptors: inout [pollfd]) {
        for slot in sockets.indices {
            guard let tls = sockets[slot].tls else { continue }
            var events = Int16(POLLIN)
            if sockets[slot].writeBlocked { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: tls.fileDescriptor, events: events, revents: 0))
        }
    }

    /// Marks the sockets `poll()` found readable or writable (or ended), in the order
    /// ``appendPollDescriptors(to:)`` added them.
    mutating func polled(_ descriptors: ArraySlice<pollfd>) {
        var next = descriptors.startIndex
        for slot in sockets.indices where sockets[slot].tls != nil {
            let revents = descriptors[next].revents
            next += 1
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { sockets[slot].readReady = true }
            if revents & Int16(POLLOUT | POLLHUP | POLLERR) != 0 { sockets[slot].writeBlocked = false }
        }
    }
}
