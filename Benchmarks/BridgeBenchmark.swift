import APN
import APNBridge
import APNTLS
import Foundation
import APNMockGateway

/// `apn-bench bridge`: a binary `Connection` (fastMode, command 2, one socket) → an
/// in-process ``Bridge`` → an in-process ``HTTP2MockGateway``, all over TLS on loopback;
/// beside it, in the same run, `Provider` → the same kind of gateway directly (what
/// `apn-bench http2` measures), so the bridge's figure is read as a ratio of it. Then one
/// refusal per 10,000, and the memory per notification in flight through the bridge.
enum BridgeBenchmark {
    static let keyID = "BENCHKEY01"
    static let teamID = "BENCHTEAM1"
    static let topic = "com.example.bench"

    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 200_000)
        let count = options.operations
        print("bridge: \(count) notifications a round, Connection (fastMode, command 2) → Bridge → HTTP2MockGateway, "
            + "TLS loopback, provider tokens, 1,000 streams; \(options.rounds) round(s) (+1 warm-up); "
            + "the direct Provider → HTTP2MockGateway figure measured beside it")
        let devices = (0..<count).map { SendBenchmark.makeDevice($0) }
        let batches = stride(from: 0, to: count, by: 1_000).map { Array(devices[$0..<min($0 + 1_000, count)]) }
        let note = APN.Notification().setAlertText("Hello, this is a benchmark notification").setBadge(1)
        _ = note.compiledPayload()

        var direct: [Double] = []
        if options.includes("throughput") || options.includes("rejections") {
            direct = try (0...options.rounds).map { _ in try directRound(devices, note: note) }.dropFirst().map { $0 }
            report("direct: Provider → HTTP2MockGateway", operations: count, seconds: direct, unit: "notifications/s")
        }
        var plain: [Double] = []
        if options.includes("throughput") || options.includes("journal") {
            plain = try (0...options.rounds).map { _ in try bridgeRound(devices, batches: batches, note: note) }
                .dropFirst().map { $0 }
            report("bridge, no faults", operations: count, seconds: plain, unit: "notifications/s")
            printRatio(plain, direct)
        }
        if options.includes("journal") {
            // #41: with a store every notification is journaled before it is forwarded
            // (SQLite in the temporary folder, one group commit at a time).
            let journaled = try (0...options.rounds).map { _ in
                try bridgeRound(devices, batches: batches, note: note, store: true)
            }.dropFirst().map { $0 }
            report("bridge with --store (journal)", operations: count, seconds: journaled, unit: "notifications/s")
            let median = { (values: [Double]) in values.sorted()[values.count / 2] }
            print("  = \(String(format: "%.0f", 100 * median(plain) / median(journaled))) % of the bridge without a store")
        }
        if options.includes("rejections") {
            let refused = Set(stride(from: 9_999, to: count, by: 10_000))
            let seconds = try (0...options.rounds).map { _ in
                try bridgeRound(devices, batches: batches, note: note, refusing: refused)
            }.dropFirst().map { $0 }
            report("bridge, 1 refusal per 10,000", operations: count, seconds: seconds, unit: "notifications/s")
            printRatio(seconds, direct)
        }
        if options.only == "memory-child" {
            try memory(devices: Array(devices.prefix(100_000)), note: note)
        } else if options.includes("memory") {
            try SendBenchmark.runInChildProcess("memory-child", count: min(count, 100_000), bench: "bridge")
        }
    }

    /// The bridge's rate as a share of the direct rate (medians; the same notifications).
    static func printRatio(_ bridge: [Double], _ direct: [Double]) {
        guard !bridge.isEmpty, !direct.isEmpty else { return }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        print("  = \(String(format: "%.0f", 100 * median(direct) / median(bridge))) % of the direct rate")
    }

    /// An upstream answering as Apple does, with the benchmark's key; `refusing` tokens
    /// are answered 400 BadDeviceToken.
    static func upstream(refusing refused: Set<Int> = [], devices: [Device], key: ES256SigningKey) throws -> HTTP2MockGateway {
        var faults = HTTP2MockGateway.Faults()
        for n in refused { faults.rejectToken(devices[n].hexString, reason: .badDeviceToken) }
        var configuration = HTTP2MockGateway.Configuration(
            providerKeys: [keyID: .init(teamID: teamID, key: key.verificationKey)], faults: faults)
        configuration.sendsUniqueID = false
        let gateway = try HTTP2MockGateway(configuration: configuration)
        try gateway.start()
        return gateway
    }

    /// Provider options reaching `gateway` with `key`.
    static func providerOptions(_ gateway: HTTP2MockGateway, key: ES256SigningKey, keyFile: String?) throws -> Provider.Options {
        var settings = Provider.Options()
        settings.authentication = .token(
            keyID: keyID, teamID: teamID, key: keyFile.map { .file($0) } ?? .data(Array(key.pkcs8PEM().utf8)))
        settings.topic = topic
        settings.address = "127.0.0.1"
        settings.port = gateway.port
        settings.ca = [.data(Array(try gateway.certificateAuthority.certificate.pem().utf8))]
        settings.requestTimeout = .seconds(600)
        return settings
    }

    /// Seconds for `Provider.send` of every device, straight to a fresh gateway.
    static func directRound(_ devices: [Device], note: APN.Notification) throws -> Double {
        let key = try ES256SigningKey.generate()
        let gateway = try upstream(devices: devices, key: key)
        defer { _ = gateway.stop() }
        let provider = Provider(options: try providerOptions(gateway, key: key, keyFile: nil))
        let start = ContinuousClock.now
        let responses = blocking { await provider.send(note, to: devices) }
        let elapsed = ContinuousClock.now - start
        blocking { await provider.shutdown() }
        guard responses.allSatisfy(\.isSuccess) else { throw BenchUsageError(description: "direct: not all delivered") }
        return elapsed.inSeconds
    }

    /// A bridge in front of `gateway`, one tenant, and the client options that reach it.
    final class Stack {
        let gateway: HTTP2MockGateway
        let bridge: Bridge
        let client: Connection.Options
        let directory: URL

        init(
            refusing refused: Set<Int> = [], devices: [Device], window: Int? = nil, answerDelay: Duration? = nil,
            store: Bool = false
        ) throws {
            let key = try ES256SigningKey.generate()
            gateway = try upstream(refusing: refused, devices: devices, key: key)
            if let answerDelay {
                var faults = gateway.faults
                faults.responseDelay = answerDelay
                gateway.setFaults(faults)
            }
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("apn-bench-bridge-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let keyFile = directory.appendingPathComponent("key.p8").path
            try Data(key.pkcs8PEM().utf8).write(to: URL(fileURLWithPath: keyFile))
            let authority = try CertificateAuthority(commonName: "apn-bench bridge CA")
            let clientCertificate = try authority.issueClientCertificate(topic: topic)
            let tenants = try BridgeTenants([
                BridgeTenant(
                    name: "bench", matches: [.userID(topic)], topic: topic,
                    upstream: .token(keyID: keyID, teamID: teamID, p8: keyFile))
            ])
            var configuration = Bridge.Configuration(
                serverCredentials: try authority.issueServerCertificate().credentials(),
                clientCertificateAuthorities: [authority.certificate], tenants: tenants,
                upstream: try providerOptions(gateway, key: key, keyFile: keyFile))
            if let window { configuration.window = window }
            if store { configuration.storePath = directory.appendingPathComponent("bridge.sqlite").path }
            bridge = try Bridge(configuration: configuration)
            try bridge.start()
            var client = Connection.Options()
            client.address = "127.0.0.1"
            client.port = bridge.gatewayPort
            client.cert = .data(Array(try clientCertificate.certificate.pem().utf8))
            client.key = .data(Array(try clientCertificate.privateKey.pem().utf8))
            client.ca = [.data(Array(try authority.certificate.pem().utf8))]
            client.format = .frame
            client.fastMode = true
            client.shutdownGraceWindow = .seconds(600)
            self.client = client
        }

        func stop() {
            bridge.stop(grace: .seconds(1))
            _ = gateway.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Seconds from the first push until the upstream recorded every notification it
    /// accepts; then checks every outcome (refused ones refused, nothing twice).
    static func bridgeRound(
        _ devices: [Device], batches: [[Device]], note: APN.Notification, refusing refused: Set<Int> = [],
        store: Bool = false
    ) throws -> Double {
        let stack = try Stack(refusing: refused, devices: devices, store: store)
        defer { stack.stop() }
        let connection = Connection(options: stack.client)
        let expected = devices.count - refused.count
        let start = ContinuousClock.now
        for batch in batches { connection.push(note, to: batch) }
        guard stack.gateway.waitForRecords(count: expected, timeout: .seconds(600)) else {
            throw BenchUsageError(description: "bridge: upstream recorded \(stack.gateway.recordCount) of \(expected)")
        }
        let elapsed = ContinuousClock.now - start
        // The flush's report holds every outcome; the shutdown's, what came after (none).
        let report = blocking { await connection.flush() }
        _ = SendBenchmark.blockingShutdown(connection)
        let records = stack.gateway.records
        guard report.total == devices.count, report.rejected == refused.count, records.count == expected,
            Set(records.map(\.token)).count == expected
        else {
            throw BenchUsageError(description: "bridge: outcomes \(report), \(records.count) records of \(expected)")
        }
        return elapsed.inSeconds
    }

    /// Resident memory with `devices.count` notifications forwarded and unanswered (the
    /// upstream holds its answers for an hour), the window opened wide enough to hold them
    /// all. The client's resend cache and the mock's held answers are in the same process:
    /// the figure is the whole chain's, and the bridge's share is below it.
    static func memory(devices: [Device], note: APN.Notification) throws {
        let stack = try Stack(devices: devices, window: devices.count, answerDelay: .seconds(3600))
        let batches = stride(from: 0, to: devices.count, by: 1_000).map { Array(devices[$0..<min($0 + 1_000, devices.count)]) }
        // Once measured, the bridge stops with the answers still held: the client is told
        // status 10 and, the bridge gone, gives up quickly rather than retry for minutes.
        var client = stack.client
        client.shutdownGraceWindow = .seconds(1)
        client.connectionRetryLimit = 1
        client.initialBackoff = .milliseconds(10)
        let before = SessionBenchmark.residentBytes()
        let connection = Connection(options: client)
        for batch in batches { connection.push(note, to: batch) }
        let bridge = stack.bridge
        guard bridge.wait(until: .now + .seconds(120), { $0.counts.forwarded == devices.count }) else {
            throw BenchUsageError(description: "bridge memory: forwarded \(bridge.summary.counts.forwarded)")
        }
        let after = SessionBenchmark.residentBytes()
        print("resident memory, \(devices.count) in flight".padding(toLength: 34, withPad: " ", startingAt: 0)
            + " \(format(Double(after - before))) bytes for them (\((after - before) / devices.count) bytes each, "
            + "the whole chain in one process: client cache, bridge session and forwarded copy, provider "
            + "request, mock's held answer)")
        // The upstream first: its connections end with the answers still held, so the
        // provider gives up on them at once rather than wait out their request timeout
        // (600 s here) when the bridge stops.
        _ = stack.gateway.stop()
        stack.stop()
        _ = SendBenchmark.blockingShutdown(connection)
    }
}
