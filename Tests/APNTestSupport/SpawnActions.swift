import Glibc

/// The file actions and attributes of one `posix_spawn`: the three standard streams, every
/// other descriptor closed, the working directory, and signals as a fresh process has them.
enum SpawnActions {
    /// Fills `actions` and `attributes` for `request`, the child's pipe ends placed on 0, 1
    /// and 2; a failure, or `nil`.
    static func configure(
        _ actions: inout posix_spawn_file_actions_t, _ attributes: inout posix_spawnattr_t,
        childEnds pipes: (input: Int32?, output: Int32?, error: Int32?), request: SpawnRequest
    ) -> ChildProcess.Failure? {
        var status: Int32 = 0
        func check(_ result: Int32) { if status == 0 { status = result } }
        switch request.streams.input {
        case .pipe: check(posix_spawn_file_actions_adddup2(&actions, pipes.input!, 0))
        case .null, .standardOutput: check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0))
        case .inherit: break
        }
        switch request.streams.output {
        case .pipe: check(posix_spawn_file_actions_adddup2(&actions, pipes.output!, 1))
        case .null, .standardOutput: check(posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0))
        case .inherit: break
        }
        switch request.streams.error {
        case .pipe: check(posix_spawn_file_actions_adddup2(&actions, pipes.error!, 2))
        case .standardOutput: check(posix_spawn_file_actions_adddup2(&actions, 1, 2))
        case .null: check(posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0))
        case .inherit: break
        }
        // Descriptors other tests opened without close-on-exec (sockets, a listener) must not
        // reach the child: one would keep a port or a peer's connection open after its owner
        // closed it.
        if let closeFrom = GNUSpawnExtensions.closeFrom { check(closeFrom(&actions, 3)) }
        if let directory = request.directory {
            guard let changeDirectory = GNUSpawnExtensions.changeDirectory else {
                return ChildProcess.Failure(description: "this C library cannot start a child in another directory")
            }
            check(changeDirectory(&actions, directory))
        }
        guard status == 0 else { return ChildProcess.Failure(description: "posix_spawn file actions: errno \(status)") }
        // The test process ignores SIGPIPE (the TLS layer does) and its threads may block
        // signals; a child starts with neither, as it would from a shell.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal: Int32 in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, signal) }
        var mask = sigset_t()
        sigemptyset(&mask)
        check(posix_spawnattr_setsigdefault(&attributes, &defaults))
        check(posix_spawnattr_setsigmask(&attributes, &mask))
        check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)))
        return status == 0 ? nil : ChildProcess.Failure(description: "posix_spawn attributes: errno \(status)")
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34) and `…_addchdir_np` (2.29),
/// which its headers declare only under `_GNU_SOURCE` and so Swift does not see: looked up
/// by name once.
private enum GNUSpawnExtensions {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let closeFrom: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    static let changeDirectory: ChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let address = dlsym(nil, name) else { return nil }  // RTLD_DEFAULT: glibc's is a null handle
        return unsafeBitCast(address, to: Function.self)
    }
}
