import APNSupport

/// Starts the command's helper threads (signal waiters, the record and refusal writers)
/// through the one ``ThreadStarter``: a thread the system will not start is said on
/// standard error, and its work runs on a Dispatch worker instead, so nothing waits on it.
enum CommandThread {
    /// Runs `body` on a new thread named `name` (at most 15 bytes), or on a Dispatch worker.
    static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        guard !ThreadStarter.system.startOrDispatch(name, body) else { return }
        LineWriter.stderr("apn: no thread could be started for \(name) (the system's thread limit); running it on a Dispatch worker")
    }
}
