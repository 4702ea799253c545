import APNTLS
import Glibc
import APNTestSupport
import Testing

/// A CA with a server certificate for loopback and a push client certificate, generated
/// fresh for each test.
struct Fixture {
    let authority: CertificateAuthority
    let server: IssuedCertificate
    let client: IssuedCertificate

    init(serverValidity: CertificateValidity = .oneDay) throws {
        authority = try CertificateAuthority()
        server = try authority.issueServerCertificate(validity: serverValidity)
        client = try authority.issueClientCertificate(topic: "com.example.app")
    }

    func serverContext(
        requiresClientCertificate: Bool = true, version: TLSVersion? = nil, sessionTickets: Bool = true,
        applicationProtocols: [String] = []
    ) throws -> TLSServerContext {
        try TLSServerContext(
            credentials: server.credentials(),
            clientCertificateAuthorities: requiresClientCertificate ? [authority.certificate] : [],
            requiresClientCertificate: requiresClientCertificate,
            maximumVersion: version,
            sessionTickets: sessionTickets,
            applicationProtocols: applicationProtocols)
    }

    func clientContext(
        presentsCertificate: Bool = true, version: TLSVersion? = nil, applicationProtocols: [String] = []
    ) throws -> TLSClientContext {
        try TLSClientContext(
            trustedCertificates: [authority.certificate],
            credentials: presentsCertificate ? client.credentials() : nil,
            minimumVersion: version ?? .tls1_2,
            maximumVersion: version,
            applicationProtocols: applicationProtocols)
    }
}

/// How one side's handshake ended.
enum HandshakeOutcome {
    case done
    case failed(TLSError)
    case closed(clean: Bool)
    case timedOut

    var error: TLSError? {
        if case .failed(let error) = self { return error }
        return nil
    }

    var isDone: Bool {
        if case .done = self { return true }
        return false
    }
}

/// A client and the server connection a listener accepted for it, in one thread.
struct LoopbackPair {
    let listener: TLSListener
    let client: TLSConnection
    let server: TLSConnection

    init(
        server serverContext: TLSServerContext, client clientContext: TLSClientContext,
        host: String = "127.0.0.1", serverName: String? = nil
    ) throws {
        listener = try TLSListener(context: serverContext)
        client = try TLSConnection.connect(
            host: host, port: listener.port, context: clientContext, serverName: serverName, timeout: .seconds(5))
        server = try listener.accept(deadline: .now + .seconds(5))
    }

    /// Steps both handshakes, waiting with poll() between steps, until each side is done or failed.
    func handshake(within limit: Duration = .seconds(10)) -> (client: HandshakeOutcome, server: HandshakeOutcome) {
        let deadline = ContinuousClock.now + limit
        var outcomes: [HandshakeOutcome?] = [nil, nil]
        let sides = [client, server]
        while outcomes.contains(where: { $0 == nil }) {
            var waits: [pollfd] = []
            var finishedNow = false
            for index in sides.indices where outcomes[index] == nil {
                switch sides[index].handshake() {
                case .done: outcomes[index] = .done; finishedNow = true
                case .failed(let error): outcomes[index] = .failed(error); finishedNow = true
                case .closed(let clean): outcomes[index] = .closed(clean: clean); finishedNow = true
                case .wantRead: waits.append(pollfd(fd: sides[index].fileDescriptor, events: Int16(POLLIN), revents: 0))
                case .wantWrite: waits.append(pollfd(fd: sides[index].fileDescriptor, events: Int16(POLLOUT), revents: 0))
                }
            }
            if finishedNow || waits.isEmpty { continue }  // the other side may progress now
            if !pollAll(&waits, deadline: deadline) {
                for index in sides.indices where outcomes[index] == nil { outcomes[index] = .timedOut }
            }
        }
        return (outcomes[0]!, outcomes[1]!)
    }
}

/// poll() on `entries` until one is ready (true) or the deadline passes (false).
func pollAll(_ entries: inout [pollfd], deadline: ContinuousClock.Instant) -> Bool {
    while true {
        let remaining = deadline - .now
        if remaining <= .zero { return false }
        let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + 1)
        let result = poll(&entries, nfds_t(entries.count), milliseconds)
        if result > 0 { return true }
        if result < 0 && errno != EINTR { return false }
    }
}

/// Reads until `count` bytes arrived, the peer closed, or the deadline passed; the end is
/// `nil` unless the peer closed or the connection failed.
func readAll(_ connection: TLSConnection, count: Int, deadline: ContinuousClock.Instant) -> ([UInt8], TLSReadResult?) {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while received.count < count {
        let result = buffer.withUnsafeMutableBytes { connection.read(into: $0, deadline: deadline) }
        switch result {
        case .bytes(let n): received += buffer[0..<n]
        case .timedOut: return (received, nil)
        case .closed, .failed: return (received, result)
        }
    }
    return (received, nil)
}

/// Deterministic pseudo-random bytes (SplitMix64, so a failure can be replayed from the seed).
func patternBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 8)
    while bytes.count < count {
        withUnsafeBytes(of: generator.next()) { bytes += $0 }
    }
    return Array(bytes.prefix(count))
}
