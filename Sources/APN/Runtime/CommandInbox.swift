import APNSupport
import Synchronization

/// The queue of commands into an I/O thread (a connection's, a provider's). Posting wakes the thread only when it is
/// about to sleep or sleeping, so a burst of pushes costs one pipe write, not one each.
final class CommandInbox<Command: Sendable>: Sendable {
    private struct State {
        var commands: [Command] = []
        var sleeping = false
    }

    private let state = Lock(State())
    let wake: WakeSignal

    init() {
        do {
            wake = try WakeSignal()
        } catch {
            preconditionFailure("\(error)")
        }
    }

    func post(_ command: Command) {
        let wakeUp = state.withLock { state in
            state.commands.append(command)
            guard state.sleeping else { return false }
            state.sleeping = false
            return true
        }
        if wakeUp { wake.signal() }
    }

    func post(contentsOf commands: [Command]) {
        guard !commands.isEmpty else { return }
        let wakeUp = state.withLock { state in
            state.commands.append(contentsOf: commands)
            guard state.sleeping else { return false }
            state.sleeping = false
            return true
        }
        if wakeUp { wake.signal() }
    }

    /// Takes every command posted so far, swapping in `spare` (emptied) as the new queue
    /// so the arrays' storage is reused.
    func take(swapping spare: inout [Command]) {
        spare.removeAll(keepingCapacity: true)
        state.withLock { swap(&$0.commands, &spare) }
    }

    /// Marks the I/O thread as going to sleep; `false` (and not sleeping) when commands
    /// arrived meanwhile.
    func prepareToSleep() -> Bool {
        state.withLock { state in
            if !state.commands.isEmpty { return false }
            state.sleeping = true
            return true
        }
    }

    /// The I/O thread woke up.
    func awake() {
        state.withLock { $0.sleeping = false }
        wake.reset()
    }
}
