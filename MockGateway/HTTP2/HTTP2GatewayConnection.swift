import APNSupport
import APNHTTP2
import APNTLS
import APNGatewayServer

/// One HTTP/2 gateway connection, run start to finish on its own thread: the TLS handshake
/// (with a deadline), then the ``HTTP2ConnectionLoop`` until it ends, and the close that end
/// asks for.
///
/// ALPN as at Apple, which does not require it: a client that agreed on `h2` and one that
/// offered no ALPN at all (aioapns, Pushy) are both served HTTP/2 — the latter with prior
/// knowledge, its connection preface expected first. A client offering ALPN without `h2`
/// is refused in the handshake (the no_application_protocol alert) and counted in
/// ``HTTP2MockGateway/Summary/alpnRefusals``.
struct HTTP2GatewayConnection {
    let driver: ConnectionDriver
    let shared: GatewayState<HTTP2Ledger>
    let settings: HTTP2ConnectionSettings

    func run() {
        let refusedProtocol = { [shared] in shared.update { $0.summary.alpnRefusals += 1 } }
        guard driver.handshake(deadline: .now + settings.handshakeTimeout, refusedProtocol: refusedProtocol) else { return }
        let connection = driver.connection
        let certificate = clientCertificate(connection)
        var configuration = settings.session
        var streamLimitAfterToken: UInt32?
        if certificate == nil, let limit = settings.streamsUntilTokenVerified, limit < configuration.maxConcurrentStreams {
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
            certificate: certificate, streamLimitAfterToken: streamLimitAfterToken)
        switch loop.serve() {
        case .finished: driver.finish(closeNotify: true, linger: settings.lingerTimeout)
        case .reset: driver.reset()
        case .abandoned: connection.close()
        }
    }

    /// What the client certificate the connection presented (verified by the handshake
    /// against the accepted CAs) allows, or `nil` when it presented none: its topics (the
    /// configured ones, else its topics extension, else its subject `UID`), and whether it
    /// is marked for the other environment only.
    private func clientCertificate(_ connection: TLSConnection) -> ConnectionAuthenticator.Certificate? {
        guard let certificate = connection.peerCertificate else { return nil }
        let other: PushEnvironment = settings.environment == .sandbox ? .production : .sandbox
        let wrongEnvironment = certificate.hasExtension(oid: other.oid) && !certificate.hasExtension(oid: settings.environment.oid)
        var topics = settings.certificateTopics
        if topics.isEmpty { topics = certificate.pushTopics?.map(\.topic) ?? [] }
        if topics.isEmpty { topics = certificate.subjectUserID.map { [$0] } ?? [] }
        return ConnectionAuthenticator.Certificate(topics: topics, isForOtherEnvironment: wrongEnvironment)
    }
}
