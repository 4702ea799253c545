// docs/MOCKS.md, "Using MockGateway from your tests": a dependent package's tests, verbatim
// (the page's block is checked against the lines between the markers). Only what such a package
// can import: APN and MockGateway, the two products.
// docs/MOCKS.md: MockGateway example (begin)
import APN
import APNMockGateway
import Testing

/// Options for a `Connection` to a started mock: the PEM credentials it hands out.
func connectionOptions(for gateway: MockGateway) throws -> Connection.Options {
    let mock = try gateway.clientCredentials()      // a client certificate its CA issues now
    var options = Connection.Options()
    options.point(
        at: mock.host, port: mock.gatewayPort, certificatePEM: mock.certificatePEM,
        privateKeyPEM: mock.privateKeyPEM, trustingPEM: mock.certificateAuthorityPEM)
    return options
}

@Test func theWelcomeIsDelivered() async throws {
    let gateway = try MockGateway()                 // a CA and a server certificate, made now
    try gateway.start()                             // 127.0.0.1, ports chosen by the system
    defer { _ = gateway.stop() }
    let connection = Connection(options: try connectionOptions(for: gateway))
    let device = try Device("a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90")
    let outcome = await connection.send(Notification().setAlertText("Welcome"), to: device)
    #expect(outcome.isAccepted)                     // in one round trip: a marker's answer
    #expect(gateway.records.map(\.token) == [device.token])
    #expect(gateway.rejections.isEmpty)
    await connection.shutdown()
}

@Test func aDeadTokenIsRefused() async throws {
    let device = try Device("0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de")
    var faults = MockGateway.Faults()
    faults.rejectToken(device.token)                // status 8, invalid token, as Apple answered
    let gateway = try MockGateway(configuration: MockGateway.Configuration(faults: faults))
    try gateway.start()
    defer { _ = gateway.stop() }
    let connection = Connection(options: try connectionOptions(for: gateway))
    let outcome = await connection.send(Notification().setAlertText("Welcome"), to: device)
    #expect(outcome == .rejected(.invalidToken))
    #expect(gateway.records.isEmpty)
    await connection.shutdown()
}
// docs/MOCKS.md: MockGateway example (end)
