import APNSupport
import APNTLS
import Dispatch
import Testing
import Foundation
import Synchronization
import APNTestSupport

/// The built `apn` executable, run as a child process with its standard output read line by
/// line on a background thread, so tests wait for lines and for the exit with deadlines
/// (semaphore waits) instead of sleeping.
///
/// Finding the executable: SwiftPM puts every product of a build in one products directory
/// (`<scratch-path>/debug`, or `<scratch-path>/<triple>/debug`). The test runner is in that
/// directory too — on Linux it is the `swift-apnPackageTests.xctest` executable itself, on
/// macOS it is inside the `.xctest` bundle there — so we start from the runner's own path
/// (`Bundle.main.executableURL`, falling back to `CommandLine.arguments[0]`) and walk up a
/// few directories until one contains an `apn` executable. `swift test` builds `apn`
/// first because the apnTests target depends on it (Package.swift).
///
/// Every process is owned by the test case that started it (``ChildProcesses``): killed
/// and reaped when that case ends, however it ends.
final class ApnProcess: Sendable {
    /// The child process (our own spawner's, not Foundation's `Process`, #39).
    let child: ChildProcess
    private let lines: Lines
    private let standardError = ErrorBytes()
    private let errorDrained = DispatchSemaphore(value: 0)
    private let outputDrained = DispatchSemaphore(value: 0)
    /// Signalled once `input` was written whole and closed: a child reads its standard
    /// input, so with more input than a pipe holds (64 KiB) it had read most of it then.
    let inputWritten = DispatchSemaphore(value: 0)

    /// The child's process id.
    var pid: Int32 { child.pid }

    /// Standard error's bytes, filled by the reader thread.
    private final class ErrorBytes: Sendable {
        let bytes = Lock<[UInt8]>([])
        /// Signalled after each chunk read, for ``waitForStandardError(timeout:until:)``.
        let arrived = DispatchSemaphore(value: 0)
    }

    /// Standard output's lines, filled by the reader thread.
    private final class Lines: Sendable {
        let lines = Lock<[String]>([])
        let arrived = DispatchSemaphore(value: 0)
    }

    enum Failure: Error, CustomStringConvertible {
        case executableNotFound(String)
        case timedOut(String)

        var description: String {
            switch self {
            case .executableNotFound(let from): "no such executable in the directories above \(from); build it first"
            case .timedOut(let what): "timed out waiting for \(what)"
            }
        }
    }

    static func executable(_ name: String = "apn") throws -> URL {
        // A path: a program of the system (`/bin/bash` for a pipeline), not of the build.
        if name.hasPrefix("/") { return URL(fileURLWithPath: name) }
        let runner = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var directory = runner.resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw Failure.executableNotFound(runner.path)
    }

    /// Starts `apn` with `arguments`; `input`, when given, is its standard input (then
    /// closed), else it reads from /dev/null. `directory`, when given, is its working directory;
    /// `environment` is added to the test runner's; `executable` names another product of the
    /// build (README's examples), or by its absolute path a program of the system.
    init(
        _ arguments: [String], input: [UInt8]? = nil, directory: String? = nil,
        environment: [String: String] = [:], executable: String = "apn"
    ) throws {
        child = try ChildProcess(
            try Self.executable(executable).path, arguments: arguments,
            environment: environment.isEmpty ? nil : ChildProcess.environment(adding: environment),
            directory: directory, standardInput: input == nil ? .null : .pipe)
        let lines = Lines()
        self.lines = lines
        if let writer = child.standardInput, let input {
            // Written from a thread of its own: a child that stops reading must not block the test.
            let written = inputWritten
            Thread.detachNewThread {
                ChildProcess.writeAll(input, to: writer)
                written.signal()
            }
        }
        let outputDescriptor = child.standardOutput!
        let errorDescriptor = child.standardError!
        let (outputDrained, errorDrained, standardError) = (self.outputDrained, self.errorDrained, self.standardError)
        Thread.detachNewThread { Self.readLines(outputDescriptor, into: lines, drained: outputDrained) }
        Thread.detachNewThread { Self.readError(errorDescriptor, into: standardError, drained: errorDrained) }
    }

    deinit {
        child.kill()
    }

    /// The next line the process writes to standard output, waiting up to `timeout`.
    func nextLine(timeout: Double = 60) throws -> String {
        guard lines.arrived.wait(timeout: .now() + timeout) == .success else {
            throw Failure.timedOut("a line on standard output")
        }
        return lines.lines.withLock { $0.removeFirst() }
    }

    /// How many lines arrived on standard output and were not taken yet, without waiting.
    var linesWaiting: Int {
        lines.lines.withLock { $0.count }
    }

    /// Waits up to `timeout` for the process to exit and returns its status and standard error.
    /// The exit status, or the signal number when a signal ended it (as Foundation's
    /// `terminationStatus` gave).
    func waitForExit(timeout: Double = 60) throws -> (status: Int32, standardError: String) {
        guard let termination = child.waitForExit(timeout: .milliseconds(Int64(timeout * 1000))) else {
            child.signal(SIGKILL)
            throw Failure.timedOut("apn to exit")
        }
        guard errorDrained.wait(timeout: .now() + timeout) == .success else { throw Failure.timedOut("standard error") }
        errorDrained.signal()  // a later wait for the exit returns at once too
        let status: Int32 = switch termination {
        case .exited(let status), .signalled(let status): status
        }
        return (status, String(decoding: standardError.bytes.withLock { $0 }, as: UTF8.self))
    }

    /// Sends `signal` to the process (unless it has exited).
    func send(_ signal: Int32) {
        child.signal(signal)
    }

    private static func readLines(_ descriptor: Int32, into lines: Lines, drained: DispatchSemaphore) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                lines.lines.withLock { $0.append(line) }
                lines.arrived.signal()
            }
        }
        close(descriptor)
        drained.signal()
    }

    /// The lines not yet taken by ``nextLine(timeout:)``, once standard output has closed
    /// (waiting up to `timeout` for that).
    func remainingLines(timeout: Double = 60) throws -> [String] {
        guard outputDrained.wait(timeout: .now() + timeout) == .success else {
            throw Failure.timedOut("standard output to close")
        }
        outputDrained.signal()
        return lines.lines.withLock { $0 }
    }

    private static func readError(_ descriptor: Int32, into standardError: ErrorBytes, drained: DispatchSemaphore) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            standardError.bytes.withLock { $0 += buffer[..<count] }
            standardError.arrived.signal()
        }
        close(descriptor)
        drained.signal()
        standardError.arrived.signal()
    }

    /// What the process wrote to standard error so far.
    var standardErrorSoFar: String {
        String(decoding: standardError.bytes.withLock { $0 }, as: UTF8.self)
    }

    /// Waits up to `timeout` until what the process wrote to standard error so far
    /// satisfies `condition` (while it runs: a log); returns whether it did.
    func waitForStandardError(timeout: Double = 60, until condition: (String) -> Bool) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while true {
            if condition(String(decoding: standardError.bytes.withLock { $0 }, as: UTF8.self)) { return true }
            guard standardError.arrived.wait(timeout: deadline) == .success else {
                return condition(String(decoding: standardError.bytes.withLock { $0 }, as: UTF8.self))
            }
        }
    }
}

/// Decodes one JSON object line.
func jsonObject(_ line: String) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
    return try #require(value as? [String: Any], "not a JSON object: \(line)")
}

