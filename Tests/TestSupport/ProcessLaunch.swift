package import Foundation
import Synchronization

/// Starts the child processes tests run, one launch at a time in the test process. Each
/// child still runs concurrently with the others; only `Process.run()` itself is serialised:
/// on Linux, Foundation's `run()` crashed once (signal 11, a `memcpy` inside it) while
/// parallel tests launched `apn` children on a machine loaded with builds and profilers.
package enum ProcessLaunch {
    private static let launching = Mutex(())

    /// `process.run()`, under the launch lock.
    package static func run(_ process: Process) throws {
        try launching.withLock { _ in try process.run() }
    }
}
