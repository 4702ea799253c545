import APNTLS

/// The loop of an accept thread: owns one listener, accepts until the gateway stops,
/// hands each connection to `serve` (which starts its thread), then closes the listener.
enum AcceptLoop {
    /// Starts the accept thread of `listener`; each connection it accepts gets a thread
    /// of its own running `serve`. `name` names the threads ("MockGateway gateway …").
    static func start<Ledger: GatewayLedger & ~Copyable>(
        _ listener: TLSListener, name: String, shared: GatewayState<Ledger>,
        serve: @escaping @Sendable (GatewayDriver<Ledger>) -> Void
    ) {
        let listenerHandoff = Handoff(listener)
        ThreadLauncher.start("\(name) accept", shared: shared) {
            run(listenerHandoff.take(), shared: shared) { connection in
                let connectionHandoff = Handoff(connection)
                ThreadLauncher.start("\(name) connection", shared: shared) {
                    serve(GatewayDriver(connection: connectionHandoff.take(), shared: shared))
                }
            }
        }
    }

    static func run<Ledger: GatewayLedger & ~Copyable>(
        _ listener: TLSListener, shared: GatewayState<Ledger>, serve: (TLSConnection) -> Void
    ) {
        defer { listener.close() }
        while !shared.isStopping {
            do {
                serve(try listener.accept(deadline: .now + GatewayDriver<Ledger>.slice))
            } catch where error.kind == .timeout {
                continue
            } catch {
                // Out of descriptors or similar: back off for a slice instead of spinning.
                _ = shared.pause(until: .now + GatewayDriver<Ledger>.slice)
            }
        }
    }
}
