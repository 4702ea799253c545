import APNSupport
import Dispatch
import Foundation
import Synchronization

/// A one-line progress display on standard error, redrawn in place at most 10 times a
/// second, and only when standard error is a terminal.
final class ProgressLine: @unchecked Sendable {
    // @unchecked Sendable: `timer` is set once in init and afterwards only cancelled, which
    // DispatchSource makes thread-safe; the counts and the total are behind a Mutex; the rest
    // is immutable.
    /// The counts shown.
    struct Counts: Sendable {
        var sent = 0
        var accepted = 0
        var notAccepted = 0
    }

    private let counts = Lock(Counts())
    private let timer: (any DispatchSourceTimer)?
    private let start = ContinuousClock.now
    /// Nil while the recipients are still being read.
    private let total: Lock<Int?>

    /// Starts drawing when standard error is a terminal; otherwise does nothing. `total`
    /// is nil when not known yet (``setTotal(_:)``).
    init(total: Int?) {
        self.total = Lock(total)
        guard isatty(STDERR_FILENO) == 1 else {
            timer = nil
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "apn.progress"))
        self.timer = timer
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.draw() }
        timer.resume()
    }

    /// Whether anything is drawn: callers skip counting when not.
    var isActive: Bool { timer != nil }

    /// The total, once known.
    func setTotal(_ total: Int) {
        self.total.withLock { $0 = total }
    }

    /// Changes the counts.
    func update(_ change: (inout Counts) -> Void) {
        counts.withLock { change(&$0) }
    }

    /// Draws a last time and moves to a new line.
    func finish() {
        guard let timer else { return }
        timer.cancel()
        draw()
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw() {
        let now = counts.withLock { $0 }
        let seconds = max((ContinuousClock.now - start) / .seconds(1), 0.001)
        let rate = Int(Double(now.sent) / seconds)
        let total = self.total.withLock { $0 }.map(String.init) ?? "…"
        let line = "\r\u{1B}[Ksent \(now.sent)/\(total)  accepted \(now.accepted)  not accepted \(now.notAccepted)  \(rate)/s"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
