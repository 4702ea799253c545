import APNSupport
import Foundation
import Synchronization

/// Prints a command's steps: one human-readable line each, or with `json` one JSON line
/// `{"step":NAME,…fields}` each.
struct StepPrinter: Sendable {
    let json: Bool

    func step(_ name: String, _ human: String, _ fields: [(String, JSONValue)] = []) {
        if json {
            LineWriter.stdout(.object([("step", .string(name))] + fields))
        } else {
            LineWriter.write(human, to: STDOUT_FILENO)
        }
    }
}

/// Runs `body` on the concurrency pool and blocks the calling thread until it returns.
func runBlocking(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
    let done = DispatchSemaphore(value: 0)
    let status = Lock<Int32>(0)
    Task {
        let result = await body()
        status.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return status.withLock { $0 }
}
