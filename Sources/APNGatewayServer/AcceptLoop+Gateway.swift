package import APNTLS

extension AcceptLoop {
    /// Starts the accept thread of a binary gateway listener: each connection gets a
    /// thread running the handshake, then `policy`'s handler until the connection ends.
    /// `false` when the accept thread could not be started (the listener is closed then).
    package static func startGateway<Policy: BinaryGatewayPolicy>(
        _ listener: TLSListener, name: String, server: ServerState, limits: ConnectionLimits,
        settings: ConnectionSettings, policy: Policy
    ) -> Bool {
        start(listener, name: name, server: server, limits: limits) { driver in
            BinaryConnection(driver: driver, settings: settings, policy: policy).run()
        }
    }

    /// Starts the accept thread of a feedback listener: each connection gets a thread
    /// running the handshake, then serving what `source` gives it. `false` when the accept
    /// thread could not be started (the listener is closed then).
    package static func startFeedback<Source: FeedbackSource>(
        _ listener: TLSListener, name: String, server: ServerState, limits: ConnectionLimits,
        settings: ConnectionSettings, source: Source
    ) -> Bool {
        start(listener, name: name, server: server, limits: limits) { driver in
            FeedbackConnection(driver: driver, settings: settings, source: source).run()
        }
    }
}
