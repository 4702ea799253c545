import APNTLS

/// The loop of an accept thread: owns one listener, accepts until the gateway stops,
/// hands each connection to `serve` (which starts its thread), then closes the listener.
enum AcceptLoop {
    /// Starts the accept thread of `listener`; each connection it accepts gets a thread of
    /// its own running `serve`, within `limits`. `name` names the threads, as `top -H`
    /// shows them: `<name>-accept` and `<name>-conn` ("h2mock-conn"; Linux keeps 15
    /// bytes). `false` when the accept thread could not be started: the listener is
    /// closed then.
    static func start<Ledger: GatewayLedger & ~Copyable>(
        _ listener: TLSListener, name: String, shared: GatewayState<Ledger>, limits: ConnectionLimits,
        serve: @escaping @Sendable (GatewayDriver<Ledger>) -> Void
    ) -> Bool {
        let listenerHandoff = Handoff(listener)
        let started = ThreadLauncher.start("\(name)-accept", shared: shared) {
            run(listenerHandoff.take(), shared: shared) { connection in
                admit(connection, name: name, shared: shared, limits: limits, serve: serve)
            }
        }
        if !started { listenerHandoff.take().close() }
        return started
    }

    static func run<Ledger: GatewayLedger & ~Copyable>(
        _ listener: TLSListener, shared: GatewayState<Ledger>, serve: (TLSConnection) -> Void
    ) {
        defer { listener.close() }
        while !shared.isStopping {
            do {
                // Waits until a client comes or the stop signal is raised (nil then).
                if let connection = try listener.accept(deadline: nil, orSignal: shared.stopSignal) { serve(connection) }
            } catch {
                // Out of descriptors or similar: back off instead of spinning.
                _ = shared.pause(until: .now + acceptRetryPause)
            }
        }
    }

    /// How long the accept thread waits after a failed accept before trying again.
    static var acceptRetryPause: Duration { .milliseconds(50) }

    /// Starts a thread for `connection`, or closes it — before its handshake — and counts
    /// why: ``ConnectionLimits/maxConnections`` are open already, or no thread could be
    /// started.
    private static func admit<Ledger: GatewayLedger & ~Copyable>(
        _ connection: TLSConnection, name: String, shared: GatewayState<Ledger>, limits: ConnectionLimits,
        serve: @escaping @Sendable (GatewayDriver<Ledger>) -> Void
    ) {
        guard shared.connectionThreadCount < limits.maxConnections else {
            // Counted first: a client that sees the close finds it counted.
            shared.update { $0.connectionCounters.overLimit += 1 }
            connection.close()
            return
        }
        let connectionHandoff = Handoff(connection)
        shared.connectionStarting()
        let started = ThreadLauncher.start("\(name)-conn", shared: shared) {
            defer { shared.connectionEnded() }
            serve(GatewayDriver(connection: connectionHandoff.take(), shared: shared, idleTimeout: limits.idleTimeout))
        }
        guard started else {
            shared.connectionEnded()
            shared.update { $0.connectionCounters.threadStartFailures += 1 }
            // The thread never ran, so the connection was never taken: this thread still owns it.
            connectionHandoff.take().close()
            return
        }
    }
}
