import APNTestSupport
package import Testing

/// Binds a ``ChildProcesses`` owner around each test case and kills what is left of it
/// when the case ends. Apply to every suite that starts processes: `@Suite(.ownsChildProcesses)`.
package struct OwnsChildProcesses: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
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
    package static var ownsChildProcesses: OwnsChildProcesses { OwnsChildProcesses() }
}
