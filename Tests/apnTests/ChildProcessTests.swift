import Foundation
import Glibc
import Testing
import APNTestSupport
import APNTestTraits

/// The suite's own child-process spawner (#39: Foundation's `Process.run()` crashed the suite
/// on a loaded machine): streams, exit and signal, environment, directory, what the child
/// inherits, and that a child dies with the process that started it, even a crashed one.
@Suite("the tests' child-process spawner", .threadPerTest, .ownsChildProcesses)
struct ChildProcessTests {
    @Test("standard input in, standard output and error out, the exit status")
    func streamsAndExitStatus() throws {
        let child = try ChildProcess(
            "/bin/sh", arguments: ["-c", "tr a-z A-Z; echo to-error >&2; exit 3"], standardInput: .pipe)
        ChildProcess.writeAll(Array("hello\n".utf8), to: child.standardInput!)
        #expect(ChildProcess.readToEnd(child.standardOutput!) == Array("HELLO\n".utf8))
        #expect(ChildProcess.readToEnd(child.standardError!) == Array("to-error\n".utf8))
        #expect(child.waitForExit(timeout: .seconds(60)) == .exited(3))
        #expect(!child.isRunning)
        #expect(child.termination == .exited(3))
    }

    @Test("standard error onto standard output; /dev/null for input")
    func errorOntoOutput() throws {
        let child = try ChildProcess("/bin/sh", arguments: ["-c", "cat; echo out; echo err >&2"], standardError: .standardOutput)
        #expect(ChildProcess.readToEnd(child.standardOutput!) == Array("out\nerr\n".utf8))
        #expect(child.standardError == nil && child.standardInput == nil)
        #expect(child.waitForExit(timeout: .seconds(60)) == .exited(0))
    }

    @Test("a signal ends it; none is sent once it has exited")
    func signalled() throws {
        let child = try ChildProcess("/bin/sh", arguments: ["-c", "echo ready; exec cat"], standardInput: .pipe)
        var first = [UInt8](repeating: 0, count: 6)
        #expect(read(child.standardOutput!, &first, 6) == 6)
        #expect(child.isRunning)
        #expect(child.signal(SIGTERM))
        #expect(child.waitForExit(timeout: .seconds(60)) == .signalled(SIGTERM))
        #expect(!child.signal(SIGTERM), "sent to a reaped pid")
        close(child.standardInput!)
        _ = ChildProcess.readToEnd(child.standardOutput!)
        _ = ChildProcess.readToEnd(child.standardError!)
    }

    @Test("the environment given, the working directory given")
    func environmentAndDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let child = try ChildProcess(
            "/bin/sh", arguments: ["-c", "echo \"$APN_CHILD_TEST\"; pwd -P; echo \"${HOME:+inherited}\""],
            environment: ChildProcess.environment(adding: ["APN_CHILD_TEST": "a value"]), directory: directory.path)
        let lines = String(decoding: ChildProcess.readToEnd(child.standardOutput!), as: UTF8.self).split(separator: "\n")
        let expectedHome = ProcessInfo.processInfo.environment["HOME"] == nil ? [] : ["inherited"]
        #expect(lines.map(String.init) == ["a value", directory.resolvingSymlinksInPath().path] + expectedHome)
        #expect(child.waitForExit(timeout: .seconds(60)) == .exited(0))

        let bare = try ChildProcess("/usr/bin/env", arguments: [], environment: ["ONLY": "this"])
        #expect(ChildProcess.readToEnd(bare.standardOutput!) == Array("ONLY=this\n".utf8))
        #expect(bare.waitForExit(timeout: .seconds(60)) == .exited(0))
    }

    @Test("no descriptor of the test process is inherited; signals as a fresh process has them")
    func inheritsNothing() throws {
        // A pipe opened without close-on-exec, as a server's socket might be.
        var leaky: [Int32] = [-1, -1]
        try #require(pipe(&leaky) == 0)
        defer { leaky.forEach { close($0) } }
        let child = try ChildProcess(
            "/bin/sh", arguments: ["-c", "ls /proc/$$/fd; exec grep -E '^Sig(Blk|Ign):' /proc/self/status"])
        let lines = String(decoding: ChildProcess.readToEnd(child.standardOutput!), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(child.waitForExit(timeout: .seconds(60)) == .exited(0))
        let descriptors = Set(lines.compactMap { Int32($0) })
        #expect(descriptors.isSuperset(of: [0, 1, 2]))
        #expect(!descriptors.contains(leaky[0]) && !descriptors.contains(leaky[1]), "\(descriptors) has the test's pipe \(leaky)")
        // The standard signals (1-31): none blocked, none ignored (the test process ignores
        // SIGPIPE). glibc's posix_spawn leaves its two internal real-time signals (32, 33)
        // ignored in every child it starts; they are not ours to set.
        func standardSignals(_ field: String) -> UInt64? {
            lines.first { $0.hasPrefix(field + ":\t") }.flatMap { UInt64($0.dropFirst(field.count + 2), radix: 16) }.map { $0 & 0x7fff_ffff }
        }
        #expect(standardSignals("SigBlk") == 0, "\(lines)")
        #expect(standardSignals("SigIgn") == 0, "SIGPIPE ignored like the test process? \(lines)")
    }

    @Test("a missing executable is a typed failure, and nothing is started")
    func missingExecutable() {
        #expect(throws: ChildProcess.Failure.self) {
            _ = try ChildProcess("/nonexistent/apn-\(UUID().uuidString)", arguments: [])
        }
    }

    @Test("a child outlives the thread that started it (the parent-death signal follows the process)")
    func outlivesTheStartingThread() throws {
        let started = StartedChild()
        var thread = pthread_t()
        let box = Unmanaged.passRetained(started).toOpaque()
        try #require(pthread_create(&thread, nil, { argument in
            let started = Unmanaged<StartedChild>.fromOpaque(argument!).takeRetainedValue()
            started.child = try? ChildProcess("/bin/cat", arguments: [], standardInput: .pipe)
            return nil
        }, box) == 0)
        try #require(pthread_join(thread, nil) == 0)  // the thread has ended, not just its body
        let child = try #require(started.child)
        // The starting thread has ended; `cat` still answers what it is given.
        let input = child.standardInput!
        #expect(write(input, "x\n", 2) == 2)
        var echoed = [UInt8](repeating: 0, count: 2)
        #expect(read(child.standardOutput!, &echoed, 2) == 2)
        #expect(echoed == Array("x\n".utf8))
        close(input)
        #expect(child.waitForExit(timeout: .seconds(60)) == .exited(0))
        _ = ChildProcess.readToEnd(child.standardOutput!)
        _ = ChildProcess.readToEnd(child.standardError!)
    }

    @Test("when the test process crashes, the children it started die with it")
    func childrenDieWithACrash() async throws {
        let result = try await #require(processExitsWith: .signal(SIGABRT), observing: [\.standardOutputContent]) {
            let child = try ChildProcess("/bin/sleep", arguments: ["600"], standardOutput: .null, standardError: .null)
            let line = Array("\(child.pid)\n".utf8)
            _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            abort()
        }
        let text = String(decoding: result.standardOutputContent, as: UTF8.self)
        let pid = try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), "the crashed process's child: \(text)")
        #expect(ProcessEnd.wait(for: pid, timeout: .seconds(60)), "pid \(pid) outlived the process that started it")
    }
}

/// What the short-lived thread of ``ChildProcessTests/outlivesTheStartingThread()`` started.
private final class StartedChild: @unchecked Sendable {
    // @unchecked: written by that thread before it ends, read after `pthread_join` returned.
    var child: ChildProcess?
}

/// Waiting for a process that is not our child to end: `pidfd_open` (glibc 2.36, found by
/// name since Swift does not see its header) and `poll`, which wakes when it exits.
enum ProcessEnd {
    private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    private static let pidfdOpen: PidfdOpen? = dlsym(nil, "pidfd_open").map { unsafeBitCast($0, to: PidfdOpen.self) }

    /// Whether `pid` ended within `timeout` (or had already gone).
    static func wait(for pid: pid_t, timeout: Duration) -> Bool {
        guard let pidfdOpen else { return kill(pid, 0) != 0 }
        let descriptor = pidfdOpen(pid, 0)
        guard descriptor >= 0 else { return errno == ESRCH }
        defer { close(descriptor) }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000)
        var ready: Int32
        repeat { ready = poll(&entry, 1, milliseconds) } while ready < 0 && errno == EINTR
        return ready == 1
    }
}
