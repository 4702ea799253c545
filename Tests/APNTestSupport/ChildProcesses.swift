import APNSupport
import Glibc
import Synchronization

/// The child processes one test case started, killed (SIGKILL) and reaped when it ends,
/// passed, failed or thrown: a test that stopped early at a failed `#require` used to leave
/// its `apn mock-gateway` running, parented to init, after the suite. ``ChildProcess`` adds
/// itself to ``current`` (or to ``unowned``, killed at exit, outside a test case); the
/// `OwnsChildProcesses` trait (`APNTestTraits`) binds a fresh owner around each test case. A crash of the
/// whole test process is covered by the parent-death signal (``SpawnThread``).
package final class ChildProcesses: Sendable {
    /// An owner with no child yet.
    package init() {}

    /// The owner of the test case running on this task (bound by `OwnsChildProcesses`).
    @TaskLocal package static var current: ChildProcesses?

    /// Children started with no test case around them (none should be), killed at exit.
    package static let unowned: ChildProcesses = {
        atexit { ChildProcesses.unowned.killAll() }
        return ChildProcesses()
    }()

    /// The owner a child started now belongs to: the test case's, else ``unowned``.
    static var owner: ChildProcesses { current ?? unowned }

    private let children = Lock<[ChildProcess]>([])

    func add(_ child: ChildProcess) {
        children.withLock { $0.append(child) }
    }

    /// Kills every child still running and waits (up to a minute each) until it has exited.
    package func killAll() {
        let all = children.withLock { children in
            defer { children.removeAll() }
            return children
        }
        for child in all { child.kill() }
    }
}
