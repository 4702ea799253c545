import Dispatch
import Foundation

/// SIGINT and SIGTERM turned into a wait. The signals' default (fatal) action is replaced
/// at once, so one that arrives while the command starts cannot kill it before it prints
/// its summary. main.swift blocks both in every thread from the start, so one that
/// arrives before the dispatch sources are armed stays pending and is read once they are
/// (with the disposition SIG_IGN and a thread not blocking it, the kernel discarded it).
final class StopSignals: @unchecked Sendable {
    // @unchecked Sendable: `sources` is set once in init and only cancelled afterwards;
    // DispatchSource's cancel is thread-safe.
    private let requested = DispatchSemaphore(value: 0)
    private let sources: [any DispatchSourceSignal]

    init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let queue = DispatchQueue(label: "apn.signals")
        let requested = requested
        sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // `data`: the signals since the handler last ran, so two in quick succession
            // are two requests (`apn send` exits at the second).
            source.setEventHandler { for _ in 0..<max(1, source.data) { requested.signal() } }
            source.resume()
            return source
        }
    }

    /// Ends a ``wait(keepListening:)`` as a signal would: the command stops on its own
    /// (`apn bridge` when it lost its store's lock).
    func request() {
        requested.signal()
    }

    /// Blocks until SIGINT or SIGTERM, then stops listening for them — unless
    /// `keepListening`: then the next call returns at the next signal (`apn send` stops at
    /// the first and exits at once at the second).
    func wait(keepListening: Bool = false) {
        requested.wait()
        if !keepListening {
            for source in sources { source.cancel() }
        }
    }
}
