import APNSupport
import Glibc

/// The one skeleton of the clients' I/O threads (``ConnectionLoop``, ``ProviderLoop``):
/// takes the inbox's commands, reads the clock, calls the loop's hooks at the named points
/// of a turn (``PollDriven``), and sleeps in `poll()` over the inbox's wake pipe and the
/// loop's sockets until a socket, a command or the loop's next deadline wakes it. A manual
/// clock's advances are posted to the inbox as a command, so they wake the loop too.
///
/// The loop's pool is given its inputs and its actions are performed at these points only;
/// what the skeleton itself does (taking, sleeping) decides nothing.
struct PollDriver<Command: Sendable>: ~Copyable {
    private let inbox: CommandInbox<Command>
    private let clock: ConnectionClock
    /// Posted to the inbox when a manual clock advances.
    private let clockAdvanced: Command
    /// The commands of the turn, swapped with the inbox's queue so both arrays' storage
    /// is reused.
    private var commands: [Command] = []
    /// The poll set, kept to reuse its storage: the wake pipe first, then the loop's sockets.
    private var descriptors: [pollfd] = []

    /// A driver of the loop that `inbox` feeds, on `clock`.
    init(inbox: CommandInbox<Command>, clock: ConnectionClock, clockAdvanced: Command) {
        self.inbox = inbox
        self.clock = clock
        self.clockAdvanced = clockAdvanced
    }

    /// Runs `loop`'s turns until it stops.
    mutating func run<Loop: PollDriven & ~Copyable>(_ loop: inout Loop) where Loop.Command == Command {
        let observer = clock.manual?.observe { [inbox, clockAdvanced] in inbox.post(clockAdvanced) }
        defer { if let observer { clock.manual?.removeObserver(observer) } }
        while loop.isRunning {
            inbox.take(swapping: &commands)
            // After the take: a manual clock advanced before a command was posted is seen.
            loop.beginTurn(now: clock.now())
            // By index, so each command is borrowed from the array rather than copied out.
            for index in commands.indices {
                loop.handle(commands[index])
                loop.performActions()
            }
            loop.serviceSockets()
            loop.performActions()
            loop.fireTimers()
            loop.performActions()
            loop.endOfTurn()
            loop.performActions()
            loop.flushSockets()
            loop.performActions()
            loop.finishTurn()
            if !loop.isRunning { break }
            if inbox.prepareToSleep() {
                wait(&loop, timeout: loop.sleepTimeout())
                inbox.awake()
            } else if loop.pollsWhileBusy {
                wait(&loop, timeout: 0)
            }
        }
    }

    /// Polls the wake pipe and the loop's sockets until something is ready or `timeout`
    /// (ms; -1 for none) passes, and tells the loop what its sockets are ready for.
    private mutating func wait<Loop: PollDriven & ~Copyable>(_ loop: inout Loop, timeout: Int32) {
        descriptors.removeAll(keepingCapacity: true)
        descriptors.append(pollfd(fd: inbox.wake.descriptor, events: Int16(POLLIN), revents: 0))
        loop.appendPollDescriptors(to: &descriptors)
        let result = descriptors.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
        }
        guard result > 0 else { return }
        loop.polled(descriptors[1...])
    }
}
