import APNTLS
import Dispatch
import Testing
import Foundation
import Synchronization

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
final class ApnProcess: Sendable {
    let process: Process
    private let lines = Lock<[String]>([])
    private let lineArrived = DispatchSemaphore(value: 0)
    private let standardError = Lock<[UInt8]>([])
    private let errorDrained = DispatchSemaphore(value: 0)
    private let outputDrained = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    enum Failure: Error, CustomStringConvertible {
        case executableNotFound(String)
        case timedOut(String)

        var description: String {
            switch self {
            case .executableNotFound(let from): "no apn executable found in the directories above \(from); build it first"
            case .timedOut(let what): "timed out waiting for \(what)"
            }
        }
    }

    static func executable() throws -> URL {
        let runner = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var directory = runner.resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("apn")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw Failure.executableNotFound(runner.path)
    }

    /// Starts `apn` with `arguments`; `input`, when given, is its standard input (then
    /// closed), else it reads from /dev/null.
    init(_ arguments: [String], input: [UInt8]? = nil) throws {
        process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let inputPipe = input.map { _ in Pipe() }
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if let inputPipe, let input {
            // Written from a thread of its own: a child that stops reading must not block the test.
            let writer = inputPipe.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: input)
                try? writer.close()
            }
        }
        let outputDescriptor = output.fileHandleForReading.fileDescriptor
        let errorDescriptor = error.fileHandleForReading.fileDescriptor
        Thread.detachNewThread { [self] in readLines(outputDescriptor) }
        Thread.detachNewThread { [self] in readError(errorDescriptor) }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// The next line the process writes to standard output, waiting up to `timeout`.
    func nextLine(timeout: Double = 10) throws -> String {
        guard lineArrived.wait(timeout: .now() + timeout) == .success else {
            throw Failure.timedOut("a line on standard output")
        }
        return lines.withLock { $0.removeFirst() }
    }

    /// Waits up to `timeout` for the process to exit and returns its status and standard error.
    func waitForExit(timeout: Double = 10) throws -> (status: Int32, standardError: String) {
        guard exited.wait(timeout: .now() + timeout) == .success else {
            kill(process.processIdentifier, SIGKILL)
            throw Failure.timedOut("apn to exit")
        }
        guard errorDrained.wait(timeout: .now() + timeout) == .success else { throw Failure.timedOut("standard error") }
        return (process.terminationStatus, String(decoding: standardError.withLock { $0 }, as: UTF8.self))
    }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    private func readLines(_ descriptor: Int32) {
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
                lines.withLock { $0.append(line) }
                lineArrived.signal()
            }
        }
        outputDrained.signal()
    }

    /// The lines not yet taken by ``nextLine(timeout:)``, once standard output has closed
    /// (waiting up to `timeout` for that).
    func remainingLines(timeout: Double = 10) throws -> [String] {
        guard outputDrained.wait(timeout: .now() + timeout) == .success else {
            throw Failure.timedOut("standard output to close")
        }
        outputDrained.signal()
        return lines.withLock { $0 }
    }

    private func readError(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            standardError.withLock { $0 += buffer[..<count] }
        }
        errorDrained.signal()
    }
}

/// Decodes one JSON object line.
func jsonObject(_ line: String) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
    return try #require(value as? [String: Any], "not a JSON object: \(line)")
}

