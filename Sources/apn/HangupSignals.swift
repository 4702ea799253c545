import APNSupport
import Dispatch
import Foundation
import Synchronization

/// SIGHUP turned into a reload (#42), on a serial queue of its own, never two at once.
/// main.swift blocks SIGHUP in every thread from the start, as it does SIGINT and SIGTERM
/// (StopSignals); a command that does not reload gets SIGHUP's default back before it
/// runs (``CommandRouter``).
///
/// Made first thing, before the command does anything slow: setting SIG_IGN discards a
/// pending SIGHUP, so the source must be armed before anyone has been told the process is
/// up. A SIGHUP that comes before ``handle(_:)`` is given what to do is kept and acted on
/// then.
final class HangupSignals {
    private let queue = DispatchQueue(label: "apn.reload")
    private let source: any DispatchSourceSignal
    private let state = Reloads()

    /// What to do, and whether a SIGHUP came before it was said.
    private final class Reloads: Sendable {
        let state = Lock<(reload: (@Sendable () -> Void)?, missed: Bool)>((nil, false))

        /// Runs the reload, or remembers the signal until there is one.
        func signalled() {
            let reload = state.withLock { state in
                if state.reload == nil { state.missed = true }
                return state.reload
            }
            reload?()
        }
    }

    init() {
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        // Several signals before the handler runs are one reload: it reads everything again.
        let state = state
        source.setEventHandler { state.signalled() }
        source.resume()
    }

    /// From now on each SIGHUP runs `reload` (and one that came already runs it now).
    func handle(_ reload: @escaping @Sendable () -> Void) {
        let missed = state.state.withLock { state in
            state.reload = reload
            defer { state.missed = false }
            return state.missed
        }
        if missed { queue.async(execute: reload) }
    }

    /// From now on a SIGHUP does nothing (a cancelled source calls no handler); returns
    /// once a reload under way has finished, so a stop never overlaps one.
    func end() {
        source.cancel()
        queue.sync {}
    }
}
