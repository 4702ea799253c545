import APN
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// docs/LIBRARY.md's Connection snippets, verbatim, run against a MockGateway.
@Suite("docs/LIBRARY.md: Connection usage", .timeLimit(.minutes(10)), .threadPerTest)
struct ReadmeConnectionExampleTests {
    @Test func theReadmeConnectionExampleDeliversAndReports() async throws {
        let fixture = try GatewayFixture()
        let files = try fixture.writeClientPEMFiles()
        defer { files.remove() }
        let certificatePath = files.certificatePath
        let keyPath = files.keyPath

        // docs/LIBRARY.md, first block:
        var options = Connection.Options()        // node-apn's names and defaults
        options.cert = .file(certificatePath)      // PEM or DER; options.pfx for a PKCS#12 file
        options.key = .file(keyPath)
        options.production = false                 // gateway.sandbox.push.apple.com:2195
        options.errorCallback = { code, notification, device in
            print("errorCallback(\(code), \(device.map { "\($0)" } ?? "nil"))")
        }

        // Not in docs/LIBRARY.md: the mock instead of Apple's sandbox.
        options.address = "127.0.0.1"
        options.port = fixture.mock.gatewayPort
        options.ca = [.data(fixture.caPEM)]
        options.shutdownGraceWindow = .milliseconds(100)

        // docs/LIBRARY.md, second block:
        let connection = Connection(options: options)
        connection.on { event in print("event:", event) }
        let device = try Device("a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90")
        let note = Notification().setAlertText("Hello").setBadge(1)
        connection.push(note, to: [device])                 // returns at once; connects on the first push
        let outcome = await connection.send(note, to: device)
        print(outcome)                                       // accepted (flush): a marker's answer
        let report = await connection.shutdown()             // waits for every outcome
        print(report)                                        // accepted 2, rejected 0, failed 0, unknown fate 0

        #expect(outcome == .accepted(Acceptance(evidence: .flush)))
        #expect("\(report)" == "accepted 2, rejected 0, failed 0, unknown fate 0")
        #expect(fixture.mock.records.count == 2)
    }

    @Test func theReadmeResendCacheOptionsAndArrayOutcomes() async throws {
        var faults = MockGateway.Faults()
        faults.rejectToken([UInt8](repeating: 0xAB, count: 32))
        let fixture = try GatewayFixture(faults: faults)
        let connection = Connection(options: fixture.options())
        let device = try Device("a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90")
        let note = Notification().setAlertText("Hello").setBadge(1)

        // docs/LIBRARY.md, "Nothing lost at real gateway latency":
        var nodeAPN = Connection.Options()
        nodeAPN.cacheLength = 1000                   // node-apn's count-bounded FIFO, exactly
        var bounded = Connection.Options()
        bounded.confirmationInterval = 10_000        // at most 10,000 ever unconfirmed after a drop
        let devices = [device, try Device(String(repeating: "ab", count: 32))]
        connection.push(note, to: devices) { index, outcome in   // each device's outcome, as known
            if !outcome.isAccepted { print(devices[index], outcome) }
        }

        // Not in docs/LIBRARY.md: the gateway's refusal is written before shutdown starts its
        // 200 ms grace window, so a loaded machine cannot let the window end first.
        #expect(await onThread { fixture.mock.waitForRejections(count: 1, timeout: .seconds(60)) })
        let report = await connection.shutdown()
        #expect(nodeAPN.cacheLength == 1000 && Connection.Options().cacheLength == nil)
        #expect(bounded.confirmationInterval == 10_000)
        #expect(report.accepted == 1 && report.rejected == 1)
        #expect(report.notAccepted.map(\.device) == [devices[1]])
    }
}
