import Glibc

/// A client's I/O loop as a ``PollDriver`` runs it: the hooks the driver calls at the named
/// points of every turn. The driver owns what both loops share (the inbox, its wake pipe,
/// the clock's observer, the poll); a loop owns its pool and sockets and decides nothing
/// either, feeding the pool and performing its actions.
///
/// A turn, in order (``PollDriver/run(_:)``):
/// 1. ``beginTurn(now:)`` with the clock read after the inbox was taken;
/// 2. ``handle(_:)`` for each command taken, each followed by ``performActions()``;
/// 3. ``serviceSockets()``, then ``performActions()``;
/// 4. ``fireTimers()``, then ``performActions()``;
/// 5. ``endOfTurn()``, then ``performActions()``;
/// 6. ``flushSockets()``, then ``performActions()``;
/// 7. ``finishTurn()`` (the turn's reports go to the callback queue);
/// 8. unless stopped, sleep in `poll()`: for ``sleepTimeout()`` when the inbox is empty,
///    else at once and only when ``pollsWhileBusy``.
protocol PollDriven: ~Copyable {
    /// What other threads post to the loop.
    associatedtype Command: Sendable

    /// False once the pool said stop: the driver ends after the turn.
    var isRunning: Bool { get }
    /// A turn starts at `now`.
    mutating func beginTurn(now: Timestamp)
    /// One command, fed to the pool.
    mutating func handle(_ command: Command)
    /// Reads (and, where the protocol interleaves them, writes) what the sockets are ready for.
    mutating func serviceSockets()
    /// Ticks the timers that are due.
    mutating func fireTimers()
    /// The pool's checks across every connection, once per turn.
    mutating func endOfTurn()
    /// Writes what the pool's sessions have to send.
    mutating func flushSockets()
    /// Performs or reports every action the pool asked for, in order.
    mutating func performActions()
    /// Hands the turn's reports to the callback queue.
    mutating func finishTurn()
    /// Milliseconds to sleep when nothing waits in the inbox (-1: until woken).
    mutating func sleepTimeout() -> Int32
    /// Whether to poll (without sleeping) though commands wait, to learn what the sockets
    /// are ready for.
    var pollsWhileBusy: Bool { get }
    /// Adds the descriptor of every socket to poll, with the events wanted.
    func appendPollDescriptors(to descriptors: inout [pollfd])
    /// What `poll()` returned for the descriptors ``appendPollDescriptors(to:)`` added, in
    /// the same order.
    mutating func polled(_ descriptors: ArraySlice<pollfd>)
}
