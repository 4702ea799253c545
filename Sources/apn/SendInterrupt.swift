import APN
import Foundation

/// `apn send`'s SIGINT and SIGTERM (``StopSignals``): the first opens ``stopped`` — the
/// send stops handing notifications over, waits up to ``drainWindow`` for those in flight,
/// prints its outcome lines and summary and exits 130 — and a second exits 130 at once.
/// Armed before anything connects, so an early signal is not fatal either.
final class SendInterrupt: Sendable {
    /// How long an interrupted send waits for the outcomes of what it had handed over:
    /// the binary gateway's default grace window (2.5 s), after which a written
    /// notification with no error response counts as accepted.
    static let drainWindow: Duration = .milliseconds(2500)

    /// Opens at the first signal.
    let stopped = Latch()

    init() {
        let signals = StopSignals()
        CommandThread.start("apn-signals") { [stopped] in
            signals.wait(keepListening: true)
            stopped.open()
            signals.wait()
            exit(130)
        }
    }

    /// Whether a stop was asked for.
    var isRequested: Bool { stopped.isOpen }

    /// Cancels `task` once a stop was asked for and `grace` has passed (`nil`: at once), unless
    /// it ended first.
    func cancel<Success: Sendable>(_ task: Task<Success, Never>, afterStopAnd grace: Duration? = nil) -> Task<Void, Never> {
        Task { [stopped] in
            await stopped.wait()
            guard !Task.isCancelled else { return }
            if let grace { try? await Task.sleep(for: grace) }
            guard !Task.isCancelled else { return }
            task.cancel()
        }
    }
}
