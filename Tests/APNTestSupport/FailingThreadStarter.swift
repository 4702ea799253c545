package import APNSupport
import Synchronization

/// A ``ThreadStarter`` that refuses the threads `refuses` picks by their number (0 for the
/// first asked for), as a system at its thread limit does, and starts the others as the
/// system would; it counts the refusals.
package final class FailingThreadStarter: Sendable {
    private let refuses: @Sendable (Int) -> Bool
    private let asked = Atomic<Int>(0)
    private let refusedCount = Atomic<Int>(0)

    /// Refuses thread number `n` when `refuses(n)`.
    package init(refuses: @escaping @Sendable (Int) -> Bool) {
        self.refuses = refuses
    }

    /// How many threads it refused to start.
    package var refused: Int { refusedCount.load(ordering: .acquiring) }

    /// The starter to give the code under test.
    package var starter: ThreadStarter {
        ThreadStarter { [self] name, body in
            let number = asked.add(1, ordering: .acquiringAndReleasing).oldValue
            guard !refuses(number) else {
                refusedCount.add(1, ordering: .releasing)
                return false
            }
            return ThreadStarter.system.start(name, body)
        }
    }
}
