@_spi(APNBridge) import APN
import APNSupport
import Dispatch
import Synchronization

/// Whether a tenant's upstream takes a connection (the bridge's readiness, #42): the last
/// probe's failure (``Provider/probe(_:)``: TCP, TLS with the tenant's credentials, ALPN
/// `h2`), probed again when older than ``interval``, one probe at a time. A notification
/// the upstream answers shows it reachable too, and clears a failure.
final class UpstreamReachability: Sendable {
    private struct State {
        var failure: String?
        var checkedAt: ContinuousClock.Instant?
        var probing = false
        var waiting: [@Sendable () -> Void] = []
    }

    /// How long a probe's result stands.
    static let interval: Duration = .seconds(30)

    private let provider: Provider
    private let state = Lock(State())
    /// Whether ``State/failure`` is set: checked on every answer without the lock.
    private let failing = Atomic<Bool>(false)

    init(provider: Provider) {
        self.provider = provider
    }

    /// Why the last probe failed, while no answer came since; nil when reachable or not
    /// probed yet.
    var failure: String? { state.withLock { $0.failure } }

    /// The upstream answered a notification: reachable.
    func answered() {
        guard failing.load(ordering: .relaxed) else { return }
        state.withLock { $0.failure = nil }
        failing.store(false, ordering: .relaxed)
    }

    /// Probes again if the last result is older than ``interval`` (and none is under way).
    func refreshIfStale() {
        let stale = state.withLock { state in
            state.checkedAt.map { ContinuousClock.now - $0 >= Self.interval } ?? true
        }
        if stale { probe {} }
    }

    /// Probes now (or joins the probe under way); `done` is called with its result stored.
    func probe(_ done: @escaping @Sendable () -> Void) {
        let start = state.withLock { state in
            state.waiting.append(done)
            defer { state.probing = true }
            return !state.probing
        }
        guard start else { return }
        provider.probe { [self] error in
            let waiting = state.withLock { state in
                state.failure = error?.message
                state.checkedAt = .now
                state.probing = false
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            failing.store(error != nil, ordering: .relaxed)
            for done in waiting { done() }
        }
    }
}
