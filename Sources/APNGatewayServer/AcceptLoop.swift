import APNSupport
package import APNTLS

/// The loop of an accept thread: owns one listener, accepts until the server stops,
/// hands each connection to `serve` (which starts its thread), then closes the listener.
package enum AcceptLoop {
    /// Starts the accept thread of `listener`; each connection it accepts gets a thread of
    /// its own running `serve`, within `limits`. `name` names the threads, as `top -H`
    /// shows them: `<name>-accept` and `<name>-conn` ("h2mock-conn"; Linux keeps 15
    /// bytes). `false` when the accept thread could not be started: the listener is
    /// closed then.
    package static func start(
        _ listener: TLSListener, name: String, server: ServerState, limits: ConnectionLimits,
        serve: @escaping @Sendable (ConnectionDriver) -> Void
    ) -> Bool {
        let listenerHandoff = Handoff(listener)
        let started = ThreadLauncher.start("\(name)-accept", server: server) {
            run(listenerHandoff.take(), server: server) { connection in
                admit(connection, name: name, server: server, limits: limits, serve: serve)
            }
        }
        if !started { listenerHandoff.take().close() }
        return started
    }

    static func run(_ listener: TLSListener, server: ServerState, serve: (TLSConnection) -> Void) {
        defer { listener.close() }
        while !server.isStopping {
            do {
                // Waits until a client comes or the stop signal is raised (nil then).
                if let connection = try listener.accept(deadline: nil, orSignal: server.stopSignal) { serve(connection) }
            } catch {
                // Out of descriptors or similar: back off instead of spinning.
                _ = server.pause(until: .now + acceptRetryPause)
            }
        }
    }

    /// How long the accept thread waits after a failed accept before trying again.
    static var acceptRetryPause: Duration { .milliseconds(50) }

    /// Starts a thread for `connection`, or closes it — before its handshake — and counts
    /// why: ``ConnectionLimits/maxConnections`` are open already, or no thread could be
    /// started.
    private static func admit(
        _ connection: TLSConnection, name: String, server: ServerState, limits: ConnectionLimits,
        serve: @escaping @Sendable (ConnectionDriver) -> Void
    ) {
        guard server.connectionThreadCount < limits.maxConnections else {
            // Counted first: a client that sees the close finds it counted.
            server.count { $0.overLimit += 1 }
            connection.close()
            return
        }
        let connectionHandoff = Handoff(connection)
        server.connectionStarting()
        let started = ThreadLauncher.start("\(name)-conn", server: server) {
            defer { server.connectionEnded() }
            serve(ConnectionDriver(connection: connectionHandoff.take(), server: server, idleTimeout: limits.idleTimeout))
        }
        guard started else {
            server.connectionEnded()
            server.count { $0.threadStartFailures += 1 }
            // The thread never ran, so the connection was never taken: this thread still owns it.
            connectionHandoff.take().close()
            return
        }
    }
}
