import APNSupport

/// Starts a client's long-lived thread (a `Connection`'s or `Provider`'s I/O loop, a
/// `Feedback` poller) through its ``ThreadStarter``. When the system will not start one (its
/// thread or memory limit), the failure is logged as an error and the loop runs on a
/// Dispatch worker instead: every command the client was given is still answered, nothing
/// waits on a thread that never came.
enum ClientThread {
    /// Runs `body` on a new thread named `name` (at most 15 bytes, as Linux shows it), or on
    /// a Dispatch worker when none can be started.
    static func start(
        _ name: String, threads: ThreadStarter, log: ComponentLog, _ body: @escaping @Sendable () -> Void
    ) {
        guard !threads.startOrDispatch(name, body) else { return }
        log(.error, "no thread could be started for \(name) (the system's thread or memory limit); running it on a Dispatch worker")
    }
}
