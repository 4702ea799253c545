import APNSupport
/// Starts a server's threads, counting each in ``ServerState`` so that a stop
/// (``ServerState/waitForThreads(until:)``) can wait for all of them to finish.
package enum ThreadLauncher {
    /// Starts a thread named `name` running `body`; `false` when none could be started (the
    /// system's thread or memory limit), `body` then never runs.
    package static func start(_ name: String, server: ServerState, _ body: @escaping @Sendable () -> Void) -> Bool {
        server.threadStarting()
        let started = server.threadStarter.start(name) {
            body()
            server.threadFinished()
        }
        if !started { server.threadFinished() }
        return started
    }
}
