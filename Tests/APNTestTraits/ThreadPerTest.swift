import Foundation
package import Testing

/// Runs each test case on a thread of its own instead of Swift concurrency's cooperative
/// pool. That pool has one thread a core — two here — and Swift Testing runs every test,
/// synchronous ones too, on it. A test that blocks (a semaphore wait for a child process's
/// line, a blocking TLS read, a condition wait for the mock's records) held one of the two
/// for as long as it waited, so on a loaded machine the other tests' `Task`s and
/// continuations could not run and their bounded waits ran out (twenty tests failed that
/// way). With this trait the test's own code, and the child tasks it awaits, run on its
/// thread (a task executor preference, SE-0417), so blocking there costs no one else.
/// Unstructured `Task {}`s still go to the pool, which is then free.
///
/// At most ``width`` such test cases run at once. With a thread each nothing else would
/// bound them, and some 600 TLS servers and clients at once on two cores made every
/// thread so late that an idle machine failed fifteen tests; the pool used to bound them,
/// by starving them. The others wait for a turn suspended, holding no thread. The wait
/// counts toward a suite's `.timeLimit`, so the limits are hang detectors of several
/// minutes, not speed checks.
///
/// Apply it to a suite (it is recursive): `@Suite(.threadPerTest)`.
package struct ThreadPerTest: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    /// Test cases with a thread of their own at once: three a core.
    package static let width = 3 * max(1, ProcessInfo.processInfo.activeProcessorCount)

    private static let turns = AsyncSemaphore(value: width)

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope covers all its tests; only a test case gets a thread.
        guard testCase != nil else { return try await function() }
        await Self.turns.wait()
        defer { Self.turns.signal() }
        let executor = ThreadTaskExecutor(name: "test-thread")
        defer { executor.shutDown() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == ThreadPerTest {
    /// Each test case runs on a thread of its own (see ``ThreadPerTest``).
    package static var threadPerTest: ThreadPerTest { ThreadPerTest() }
}

/// A task executor with one thread that runs the jobs enqueued on it in order, until
/// ``shutDown()``; then the thread ends once its queue is empty.
package final class ThreadTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` and `stopping` are touched only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false

    package init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once it has run what is queued.
    package func shutDown() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

/// A counting semaphore whose `wait` suspends instead of blocking a thread.
package final class AsyncSemaphore: @unchecked Sendable {
    // @unchecked Sendable: `value` and `waiters` are touched only with `lock` held.
    private let lock = NSLock()
    private var value: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package init(value: Int) {
        self.value = value
    }

    /// Takes one unit, suspending until one is free.
    package func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if value > 0 {
                value -= 1
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }

    /// Gives one unit back, to the longest waiter if there is one.
    package func signal() {
        lock.lock()
        if waiters.isEmpty {
            value += 1
            lock.unlock()
        } else {
            let next = waiters.removeFirst()
            lock.unlock()
            next.resume()
        }
    }
}
