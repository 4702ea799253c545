import APNSupport
import Dispatch
import Glibc
import Synchronization

/// What ``ChildProcess`` asks ``SpawnThread`` to start: Swift values only; the C arrays are
/// built from them on the spawning thread, before `posix_spawn`.
struct SpawnRequest: Sendable {
    /// What the child's standard input, output and error are connected to.
    typealias Streams = (input: ChildProcess.Stream, output: ChildProcess.Stream, error: ChildProcess.Stream)

    let executable: String
    let arguments: [String]
    /// `NAME=value` entries.
    let environment: [String]
    let directory: String?
    let streams: Streams

    /// The test process's environment, read from `environ` (nothing in the suite changes it).
    static func currentEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return environment
    }
}

/// A started child as the spawning thread hands it back: its pid and the parent's ends of
/// its pipes.
struct Spawned: Sendable {
    let pid: pid_t
    let input: Int32?
    let output: Int32?
    let error: Int32?
}

/// The one thread that starts every child of the test process, and lives as long as it.
///
/// Why one thread: `PR_SET_PDEATHSIG` (set by `setpriv --pdeathsig KILL` in the child) fires
/// when the *thread* that started the child ends, not only the process; test cases run on
/// threads of their own that end with the case (``ThreadPerTest``), so a child started there
/// would be killed as its test's thread ended. Starting every child here ties each one to
/// the process's life instead, and also means no two spawns (and the pipes made for them)
/// ever overlap.
final class SpawnThread: Sendable {
    static let shared = SpawnThread()

    private struct Job: Sendable {
        let request: SpawnRequest
        let result: Handoff<Result<Spawned, ChildProcess.Failure>>
    }

    private let jobs = Lock<[Job]>([])
    private let wake = DispatchSemaphore(value: 0)

    private init() {
        // The thread holds the spawner for ever; it is the process-wide `shared` one.
        let started = ThreadStarter.system.start("child-spawner") { [self] in
            while true {
                wake.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job.result.put(Self.spawn(job.request))
            }
        }
        precondition(started, "the child-process spawning thread could not be started")
    }

    /// Starts `request`'s child on the spawning thread and waits for the outcome.
    func spawn(_ request: SpawnRequest) -> Result<Spawned, ChildProcess.Failure> {
        let result = Handoff<Result<Spawned, ChildProcess.Failure>>()
        jobs.withLock { $0.append(Job(request: request, result: result)) }
        wake.signal()
        return result.take()
    }

    /// `setpriv` from util-linux (Debian's essential set), which sets the parent-death signal
    /// and then executes the child in the same process; without it children are started bare.
    private static let setpriv: String? = access("/usr/bin/setpriv", X_OK) == 0 ? "/usr/bin/setpriv" : nil

    private static func spawn(_ request: SpawnRequest) -> Result<Spawned, ChildProcess.Failure> {
        guard access(request.executable, X_OK) == 0 else {
            return .failure(ChildProcess.Failure(description: "\(request.executable) is not an executable file (errno \(errno))"))
        }
        var pipes = PipeSet()
        defer { pipes.closeChildEnds() }
        do {
            try pipes.make(for: request.streams)
        } catch {
            pipes.closeParentEnds()
            return .failure(error)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if let failure = SpawnActions.configure(
            &actions, &attributes, childEnds: (pipes.input?.child, pipes.output?.child, pipes.error?.child), request: request) {
            pipes.closeParentEnds()
            return .failure(failure)
        }
        let argv = (setpriv.map { [$0, "--pdeathsig", "KILL", "--"] } ?? []) + [request.executable] + request.arguments
        let cArguments = CStringArray(argv)
        let cEnvironment = CStringArray(request.environment)
        defer {
            cArguments.free()
            cEnvironment.free()
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments.pointers, cEnvironment.pointers)
        guard status == 0 else {
            pipes.closeParentEnds()
            return .failure(ChildProcess.Failure(description: "posix_spawn \(request.executable): errno \(status)"))
        }
        if let setpriv { Self.awaitExec(pid, past: setpriv) }
        return .success(Spawned(pid: pid, input: pipes.input?.parent, output: pipes.output?.parent, error: pipes.error?.parent))
    }

    /// Waits (at most 10 s) until `pid` runs its own program, past `launcher`: `setpriv` sets
    /// the parent-death signal just before it executes the program, and a signal asked for
    /// after the parent died is never sent — a test process that crashed right after a spawn
    /// left its child running, parented to init (seen once in a loaded full suite). From the
    /// return on, a crash takes the child with it. Polls `/proc/PID/exe`, which changes at the
    /// exec (a few hundred microseconds); a child already gone ends the wait.
    private static func awaitExec(_ pid: pid_t, past launcher: String) {
        let link = "/proc/\(pid)/exe"
        let deadline = ContinuousClock.now + .seconds(10)
        var buffer = [CChar](repeating: 0, count: 4_096)
        while ContinuousClock.now < deadline {
            let length = readlink(link, &buffer, buffer.count - 1)
            guard length > 0 else { return }
            let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard path == launcher else { return }
            sched_yield()
        }
    }
}

/// A `NULL`-terminated array of C strings, allocated with `strdup`, freed by ``free()``.
private struct CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init(_ strings: [String]) {
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[strings.count] = nil
    }

    func free() {
        var index = 0
        while let pointer = pointers[index] {
            Glibc.free(pointer)
            index += 1
        }
        pointers.deallocate()
    }
}

/// The pipes for a child's standard streams: for each, the child's end (closed in the parent
/// once spawned) and the parent's, both close-on-exec.
private struct PipeSet {
    var input: (child: Int32, parent: Int32)?
    var output: (child: Int32, parent: Int32)?
    var error: (child: Int32, parent: Int32)?

    mutating func make(for streams: SpawnRequest.Streams) throws(ChildProcess.Failure) {
        if case .pipe = streams.input {
            let (read, write) = try Self.pipe()
            input = (read, write)
        }
        if case .pipe = streams.output {
            let (read, write) = try Self.pipe()
            output = (write, read)
        }
        if case .pipe = streams.error {
            let (read, write) = try Self.pipe()
            error = (write, read)
        }
    }

    /// A pipe, both ends close-on-exec. `pipe2` is not visible to Swift here; set apart from
    /// it by `fcntl`, which is safe because only this thread starts children.
    private static func pipe() throws(ChildProcess.Failure) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw ChildProcess.Failure(description: "pipe: errno \(errno)") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return (ends[0], ends[1])
    }

    func closeChildEnds() {
        for end in [input?.child, output?.child, error?.child].compactMap({ $0 }) { close(end) }
    }

    func closeParentEnds() {
        for end in [input?.parent, output?.parent, error?.parent].compactMap({ $0 }) { close(end) }
    }
}
