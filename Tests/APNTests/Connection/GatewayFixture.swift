import APNSupport
import APN
import APNTLS
import Foundation
import APNMockGateway
import Synchronization
import Testing

/// A running MockGateway with a client certificate issued by its CA, and connection
/// options pointing at it. Stops the gateway when released.
final class GatewayFixture: Sendable {
    let mock: MockGateway
    let clientCertificatePEM: [UInt8]
    let clientKeyPEM: [UInt8]
    let caPEM: [UInt8]

    init(faults: MockGateway.Faults = MockGateway.Faults(), configure: (inout MockGateway.Configuration) -> Void = { _ in }) throws {
        var configuration = MockGateway.Configuration(faults: faults, lingerTimeout: .milliseconds(200))
        // A hang detector, not the mock's 5 s default: a loaded machine can take seconds over
        // a handshake, and a client on a manual clock would then back off for good.
        configuration.handshakeTimeout = .seconds(60)
        configure(&configuration)
        mock = try MockGateway(configuration: configuration)
        try mock.start()
        let client = try mock.certificateAuthority.issueClientCertificate(topic: "com.example.tests")
        clientCertificatePEM = Array(try client.certificate.pem().utf8)
        clientKeyPEM = Array(try client.privateKey.pem().utf8)
        caPEM = Array(try mock.certificateAuthority.certificate.pem().utf8)
    }

    deinit {
        _ = mock.stop()
    }

    /// A fixture `make` starts on a port below the system's ephemeral range (32768–60999
    /// on Linux), which no other test's port-0 listener can be handed: for a test that
    /// stops its gateway and later starts another on the same port. With an ephemeral port
    /// a parallel test was once handed it in between (EADDRINUSE on a loaded machine).
    /// Ports taken already are skipped.
    static func onFixedPort(_ make: (UInt16) throws -> GatewayFixture) throws -> GatewayFixture {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let port = UInt16.random(in: 20_000..<32_768, using: &generator)
            do {
                return try make(port)
            } catch let error as TLSError where error.errno == EADDRINUSE {
                continue
            }
        }
        throw TLSError(.listen, "no free port below the ephemeral range in 200 tries")
    }

    /// Options for the mock: its CA, our client certificate, a 2 s grace window.
    func options(_ configure: (inout Connection.Options) -> Void = { _ in }) -> Connection.Options {
        var options = Connection.Options()
        options.address = "127.0.0.1"
        options.port = mock.gatewayPort
        options.cert = .data(clientCertificatePEM)
        options.key = .data(clientKeyPEM)
        options.ca = [.data(caPEM)]
        // Long enough that a loaded machine's mock answers within it: a refusal that came
        // after the window would be counted accepted (200 ms failed tests under load).
        options.shutdownGraceWindow = .seconds(2)
        options.settleWindow = .zero
        configure(&options)
        return options
    }

    /// The client certificate and key as PEM files in a fresh temporary directory.
    func writeClientPEMFiles() throws -> (certificatePath: String, keyPath: String, remove: () -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swift-apn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem")
        let key = directory.appendingPathComponent("key.pem")
        try Data(clientCertificatePEM).write(to: certificate)
        try Data(clientKeyPEM).write(to: key)
        return (certificate.path, key.path, { try? FileManager.default.removeItem(at: directory) })
    }

    /// A connection to this gateway whose errorCallback and events go to a fresh log.
    func loggedConnection(_ configure: (inout Connection.Options) -> Void = { _ in }) -> (ConnectionLog, Connection) {
        let log = ConnectionLog()
        let connection = Connection(options: options {
            $0.errorCallback = log.errorCallback
            configure(&$0)
        })
        log.listen(to: connection)
        return (log, connection)
    }

    /// Waits (bounded) for the mock to have recorded `count` notifications.
    func expectRecords(_ count: Int, timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation) async {
        // Waited for on a thread of its own: a blocked cooperative thread could keep the
        // Tasks that send from running (two cores, two cooperative threads).
        let mock = mock
        let reached = await onThread { mock.waitForRecords(count: count, timeout: timeout) }
        #expect(reached, "the mock recorded \(mock.recordCount) of \(count)", sourceLocation: sourceLocation)
    }
}

/// Distinct valid tokens: 32 bytes, the last four holding `n`.
func device(_ n: Int) -> Device {
    let bytes = [UInt8](repeating: 0xD0, count: 28) + withUnsafeBytes(of: UInt32(n).bigEndian) { Array($0) }
    return try! Device(token: bytes)
}

/// The number `device(n)` was made from.
func number(of token: [UInt8]) -> Int {
    Int(token.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
}

/// A notification whose payload names `n`.
func note(_ n: Int) -> APN.Notification {
    APN.Notification().setAlertText("n\(n)")
}

/// Everything a connection told its listeners and error callback, with bounded waits.
final class ConnectionLog: Sendable {
    struct Callback: Sendable {
        let code: ErrorCallbackCode
        let notification: APN.Notification?
        let device: Device?
    }

    private struct State {
        var events: [ConnectionEvent] = []
        var callbacks: [Callback] = []
        var outcomes: [Int: NotificationOutcome] = [:]
        var duplicateOutcomes: [Int] = []
    }

    private let state = Lock(State())
    private let condition = NSCondition()

    var events: [ConnectionEvent] { state.withLock { $0.events } }
    var callbacks: [Callback] { state.withLock { $0.callbacks } }
    var outcomes: [Int: NotificationOutcome] { state.withLock { $0.outcomes } }
    var duplicateOutcomes: [Int] { state.withLock { $0.duplicateOutcomes } }
    var eventNames: [String] { events.map { "\($0)".prefix { $0 != "(" } }.map(String.init) }

    /// The error callback to put in the options.
    var errorCallback: Connection.ErrorCallback {
        { [self] code, notification, device in
            change { $0.callbacks.append(Callback(code: code, notification: notification, device: device)) }
        }
    }

    /// Listens to `connection`'s events.
    func listen(to connection: Connection) {
        connection.on { [self] event in change { $0.events.append(event) } }
    }

    /// An outcome handler recording the outcome of notification `n`.
    func outcome(_ n: Int) -> @Sendable (NotificationOutcome) -> Void {
        { [self] outcome in
            change { state in
                if state.outcomes[n] != nil { state.duplicateOutcomes.append(n) }
                state.outcomes[n] = outcome
            }
        }
    }

    private func change(_ body: (inout State) -> Void) {
        state.withLock { body(&$0) }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `predicate` holds or `timeout` passes; whether it held.
    @discardableResult
    func wait(timeout: Duration = .seconds(20), until predicate: (ConnectionLog) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(self) {
            if !condition.wait(until: deadline) { return predicate(self) }
        }
        return true
    }
}
