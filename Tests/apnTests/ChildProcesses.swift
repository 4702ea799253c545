import APNSupport
import APNTLS
import Foundation
import Synchronization
import Testing
import TestSupport

/// The child processes one test case started, killed (SIGKILL) and reaped when it ends,
/// passed, failed or thrown: a test that stopped early at a failed `#require` used to leave
/// its `apn mock-gateway` running, parented to init, after the suite. ``ApnProcess`` adds
/// itself to ``current``; the ``OwnsChildProcesses`` trait binds a fresh owner around each
/// test case. Children started outside a test case go to ``unowned``, killed at exit.
final class ChildProcesses: Sendable {
    @TaskLocal static var current: ChildProcesses?

    /// Children started with no test case around them (none should be), killed at exit.
    static let unowned: ChildProcesses = {
        atexit { ChildProcesses.unowned.killAll() }
        return ChildProcesses()
    }()

    private let children = Lock<[ApnProcess.Child]>([])

    func add(_ child: ApnProcess.Child) {
        children.withLock { $0.append(child) }
    }

    /// Kills every child still running and waits (up to a minute each) until it has exited.
    func killAll() {
        let all = children.withLock { children in
            defer { children.removeAll() }
            return children
        }
        for child in all { child.kill() }
    }
}

/// Binds a ``ChildProcesses`` owner around each test case and kills what is left of it
/// when the case ends. Apply to every suite that starts processes: `@Suite(.ownsChildProcesses)`.
struct OwnsChildProcesses: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        let owner = ChildProcesses()
        do {
            try await ChildProcesses.$current.withValue(owner) { try await function() }
        } catch {
            owner.killAll()
            throw error
        }
        owner.killAll()
    }
}

extension Trait where Self == OwnsChildProcesses {
    /// Each test case's child processes are killed when it ends (see ``ChildProcesses``).
    static var ownsChildProcesses: OwnsChildProcesses { OwnsChildProcesses() }
}
