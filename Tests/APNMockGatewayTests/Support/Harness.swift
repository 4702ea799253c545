import APNTLS
import APNWire
import APNMockGateway
import APNTestSupport

/// A started gateway with fresh certificates, and a client context whose certificate its
/// CA issued. Stops the gateway when released.
final class Harness {
    let gateway: MockGateway
    let clientContext: TLSClientContext

    convenience init(
        faults: MockGateway.Faults = MockGateway.Faults(),
        configure: (inout MockGateway.Configuration) -> Void = { _ in }
    ) throws {
        var configuration = MockGateway.Configuration(faults: faults)
        configure(&configuration)
        try self.init(gateway: MockGateway(configuration: configuration))
    }

    /// Starts `gateway` (made by the test, not started yet).
    init(gateway: MockGateway) throws {
        self.gateway = gateway
        let client = try gateway.certificateAuthority.issueClientCertificate(topic: "com.example.app")
        clientContext = try TLSClientContext(
            trustedCertificates: [gateway.certificateAuthority.certificate], credentials: client.credentials())
        try gateway.start()
    }

    deinit {
        gateway.stop()
    }

    /// A client connected to the gateway (or feedback) listener, handshake done.
    func connect(feedback: Bool = false, context: TLSClientContext? = nil) throws -> TestClient {
        let connection = try TLSConnection.connect(
            host: "127.0.0.1", port: feedback ? gateway.feedbackPort : gateway.gatewayPort,
            context: context ?? clientContext, timeout: .seconds(5))
        try connection.handshake(deadline: .now + .seconds(5))
        return TestClient(connection)
    }

    /// Waits for `count` records (failing the wait's caller when they do not come) and
    /// returns the snapshot.
    func records(waitingFor count: Int) -> [MockGateway.Record] {
        _ = gateway.waitForRecords(count: count, timeout: .seconds(10))
        return gateway.records
    }
}

/// A device token whose 32 bytes are all `seed`.
func token(_ seed: UInt8) -> [UInt8] {
    [UInt8](repeating: seed, count: 32)
}

/// A small JSON payload naming `number`.
func payload(_ number: Int) -> [UInt8] {
    Array(#"{"aps":{"alert":"n\#(number)"}}"#.utf8)
}

/// Command 1 frames for the identifiers, token `token(UInt8(id))`, expiry 0.
func enhancedFrames(_ identifiers: ClosedRange<UInt32>, rejectedToken: [UInt8]? = nil, at rejectedAt: UInt32 = 0) -> [UInt8] {
    var buffer = WireBuffer()
    for id in identifiers {
        let deviceToken = id == rejectedAt ? rejectedToken ?? token(UInt8(id)) : token(UInt8(id))
        buffer.writeEnhancedNotification(identifier: id, expiry: 0, token: deviceToken, payload: payload(Int(id)))
    }
    return buffer.readableBytesArray
}

/// The record the gateway keeps for `enhancedFrames` identifier `id`.
func enhancedRecord(_ id: UInt32, connection: Int, sequence: Int) -> MockGateway.Record {
    MockGateway.Record(
        connection: connection, sequence: sequence, command: .enhanced, identifier: id,
        token: token(UInt8(id)), payload: payload(Int(id)), expiry: 0, priority: nil)
}
