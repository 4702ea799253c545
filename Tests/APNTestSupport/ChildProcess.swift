import APNSupport
import Dispatch
package import Glibc
import Synchronization

/// A child process a test started, without Foundation's `Process` (whose `run()` crashed the
/// suite with signal 11 on a loaded machine, #39): `posix_spawn` with file actions for the
/// three standard streams, the environment and arguments built as C arrays before the call,
/// from one long-lived thread (``SpawnThread``), under `setpriv --pdeathsig KILL` so that the
/// child dies with the test process even when that process crashes.
///
/// The exit is observed by a thread of its own that waits (`waitid` with `WNOWAIT`), marks
/// the child exited, then reaps it: ``signal(_:)`` sends only while the child is not marked
/// exited, so it never reaches a recycled pid. The test case that started it owns it
/// (``ChildProcesses``): it is killed (SIGKILL) and reaped when the case ends, however it ends.
///
/// The pipe descriptors it hands out (``standardInput``, ``standardOutput``,
/// ``standardError``) belong to the caller, who closes them; they are close-on-exec, so no
/// other child inherits them and an end of file arrives when this child (and whatever it
/// started) has closed its end.
package final class ChildProcess: Sendable {
    /// How the child's process ended.
    package enum Termination: Sendable, Hashable, CustomStringConvertible {
        /// It called `exit` with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)

        /// `exited(0)`.
        package var succeeded: Bool { self == .exited(0) }

        package var description: String {
            switch self {
            case .exited(let status): "exited with \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// What one of the child's standard streams is connected to.
    package enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe whose other end the caller gets.
        case pipe
        /// Standard error only: the same pipe as standard output.
        case standardOutput
        /// The test process's own (a benchmark's child reporting on its parent's terminal).
        case inherit
    }

    /// Starting the child failed.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What failed, with its `errno`.
        package let description: String
    }

    /// The child's process id.
    package let pid: pid_t
    /// The write end of the child's standard input, when it is `.pipe`.
    package let standardInput: Int32?
    /// The read end of the child's standard output, when it is `.pipe`.
    package let standardOutput: Int32?
    /// The read end of the child's standard error, when it is `.pipe`.
    package let standardError: Int32?
    private let exit: ExitState

    /// Starts `executable` (an absolute path) with `arguments`. `environment` replaces the
    /// test process's own when given (``environment(adding:)`` merges); `directory` is the
    /// working directory when given.
    package init(
        _ executable: String, arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, standardInput: Stream = .null, standardOutput: Stream = .pipe,
        standardError: Stream = .pipe
    ) throws(Failure) {
        let request = SpawnRequest(
            executable: executable, arguments: arguments,
            environment: (environment ?? SpawnRequest.currentEnvironment()).map { "\($0.key)=\($0.value)" },
            directory: directory, streams: (standardInput, standardOutput, standardError))
        let spawned = try SpawnThread.shared.spawn(request).get()
        pid = spawned.pid
        self.standardInput = spawned.input
        self.standardOutput = spawned.output
        self.standardError = spawned.error
        exit = ExitState()
        let (pid, exit) = (pid, exit)
        _ = ThreadStarter.system.startOrDispatch("child-\(pid)") { exit.await(pid) }
        ChildProcesses.owner.add(self)
    }

    deinit {
        kill()
    }

    /// Sends `signal` unless the child has exited; whether it was sent.
    @discardableResult
    package func signal(_ signal: Int32) -> Bool {
        exit.whileRunning { Glibc.kill(pid, signal) == 0 } ?? false
    }

    /// SIGKILL unless it has exited, then waits (a minute at most) until it has been reaped.
    package func kill() {
        signal(SIGKILL)
        _ = waitForExit(timeout: .seconds(60))
    }

    /// Whether the child is still running (not yet exited).
    package var isRunning: Bool { exit.whileRunning { true } ?? false }

    /// How it ended, once it has been reaped; `nil` while it runs.
    package var termination: Termination? { exit.termination }

    /// Waits up to `timeout` for the child to end; how it ended, or `nil` if it still runs.
    package func waitForExit(timeout: Duration) -> Termination? {
        exit.wait(timeout: timeout)
    }
}

extension ChildProcess {
    /// The test process's environment with `additions` laid over it.
    package static func environment(adding additions: [String: String]) -> [String: String] {
        SpawnRequest.currentEnvironment().merging(additions) { $1 }
    }

    /// Reads `descriptor` to its end and closes it: everything the child wrote there.
    package static func readToEnd(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        close(descriptor)
        return bytes
    }

    /// Writes all of `bytes` to `descriptor` (stopping early if the reader has gone) and
    /// closes it; whether everything was written.
    @discardableResult
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }
}

/// The child's life as its waiter thread sees it: running, exited (a zombie not yet reaped,
/// so its pid is still its own), then reaped with a ``ChildProcess/Termination``.
private final class ExitState: Sendable {
    private let state = Lock<(exited: Bool, termination: ChildProcess.Termination?)>((false, nil))
    private let reaped = DispatchSemaphore(value: 0)

    /// Runs `body` under the lock while the child has not exited; `nil` once it has.
    func whileRunning<T>(_ body: () -> T) -> T? {
        state.withLock { $0.exited ? nil : body() }
    }

    var termination: ChildProcess.Termination? { state.withLock { $0.termination } }

    /// The waiter thread's work: wait for the exit without reaping, mark it, then reap.
    func await(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        state.withLock { $0.exited = true }
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
        // The kernel's encoding: low 7 bits the signal (0: a normal exit), then the status.
        let termination: ChildProcess.Termination =
            result < 0 ? .exited(-1) : (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
        state.withLock { $0.termination = termination }
        reaped.signal()
    }

    func wait(timeout: Duration) -> ChildProcess.Termination? {
        if let termination { return termination }
        guard reaped.wait(timeout: .now() + .nanoseconds(timeout.wholeNanoseconds)) == .success else { return nil }
        reaped.signal()  // every later wait returns at once too
        return termination
    }
}
