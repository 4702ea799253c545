import APNHTTP2
import APNTLS
import GatewayServer

/// One HTTP/2 gateway connection, run start to finish on its own thread: the TLS handshake
/// (with a deadline), the ALPN check — a client that did not agree on `h2` is refused: the
/// connection is closed at once — then the ``HTTP2ConnectionLoop`` until it ends, and the
/// close that end asks for.
struct HTTP2GatewayConnection {
    let driver: ConnectionDriver
    let shared: GatewayState<HTTP2Ledger>
    let settings: HTTP2ConnectionSettings

    func run() {
        guard driver.handshake(deadline: .now + settings.handshakeTimeout) else { return }
        let connection = driver.connection
        guard connection.applicationProtocol == "h2" else {
            shared.update { $0.summary.alpnRefusals += 1 }
            connection.close()
            return
        }
        let topics = certificateTopics(connection)
        var configuration = settings.session
        var streamLimitAfterToken: UInt32?
        if topics == nil, let limit = settings.streamsUntilTokenVerified, limit < configuration.maxConcurrentStreams {
            // Token clients start with few streams, as at Apple.
            streamLimitAfterToken = configuration.maxConcurrentStreams
            configuration.maxConcurrentStreams = limit
        }
        guard let session = try? HTTP2Session(role: .server, configuration: configuration),
            let wake = try? WakeSignal()
        else {
            connection.close()
            return
        }
        // A bulk reader: take what the socket holds in one system call.
        connection.setReadAhead(true)
        let number = shared.update { $0.openConnection() }
        defer { shared.update { $0.closeConnection() } }
        let loop = HTTP2ConnectionLoop(
            connection: connection, shared: shared, wake: wake, number: number, session: session, settings: settings,
            certificateTopics: topics, streamLimitAfterToken: streamLimitAfterToken)
        switch loop.serve() {
        case .finished: driver.finish(closeNotify: true, linger: settings.lingerTimeout)
        case .reset: driver.reset()
        case .abandoned: connection.close()
        }
    }

    /// The topics of the client certificate the connection presented (verified by the
    /// handshake against the accepted CAs), or `nil` when it presented none.
    private func certificateTopics(_ connection: TLSConnection) -> [String]? {
        guard let certificate = connection.peerCertificate else { return nil }
        if !settings.certificateTopics.isEmpty { return settings.certificateTopics }
        return certificate.subjectUserID.map { [$0] } ?? []
    }
}
