import APN
import APNTLS
import Foundation
import APNMockGateway

/// `apn-bench http2`: notifications/s through ``Provider`` into an in-process
/// ``HTTP2MockGateway`` over one TLS connection (both ends on this machine), provider-token
/// authentication (`--auth certificate` for a client certificate instead), `--streams`
/// (1,000) in flight; then the resident memory per request waiting or in flight.
///
/// With `--port N --certs DIR` the notifications go to a server already listening on
/// `127.0.0.1:N` instead (no gateway in this process), trusting `DIR/ca.pem` and signing
/// provider tokens with the key `apn certs DIR` writes: how `scripts/callgrind-http2`
/// counts our client's instructions per request against nghttpd.
enum HTTP2Benchmark {
    static let keyID = "BENCHKEY01"
    static let teamID = "BENCHTEAM1"
    /// The name of the gateway's connection threads (as ``ThreadCPUTime`` matches it).
    static let gatewayThreadName = "h2mock-conn"

    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(
            arguments, defaultOperations: 200_000, extra: ["--streams", "--connections", "--port"],
            choices: ["--auth": ["token", "certificate"]], pathOptions: ["--certs", "--payload"])
        if let port = options.values["--port"] { return try runAgainstServer(port: port, options: options) }
        let usesCertificate = options.words["--auth"] == "certificate"
        let count = options.operations
        let streams = max(1, options.values["--streams"] ?? 1_000)
        let connections = max(1, options.values["--connections"] ?? 1)
        let key = try ES256SigningKey.generate()
        var configuration = HTTP2MockGateway.Configuration(
            providerKeys: [keyID: .init(teamID: teamID, key: key.verificationKey)],
            maxConcurrentStreams: UInt32(streams))
        configuration.sendsUniqueID = false
        let gateway = try HTTP2MockGateway(configuration: configuration)
        try gateway.start()
        defer { _ = gateway.stop() }
        var settings = Provider.Options()
        if usesCertificate {
            let client = try gateway.certificateAuthority.issueClientCertificate(topic: "com.example.bench")
            settings.authentication = .certificate
            settings.cert = .data(Array(try client.certificate.pem().utf8))
            settings.key = .data(Array(try client.privateKey.pem().utf8))
        } else {
            settings.authentication = .token(keyID: keyID, teamID: teamID, key: .data(Array(key.pkcs8PEM().utf8)))
        }
        settings.topic = "com.example.bench"
        settings.address = "127.0.0.1"
        settings.port = gateway.port
        settings.ca = [.data(Array(try gateway.certificateAuthority.certificate.pem().utf8))]
        settings.maxConcurrentStreams = streams
        settings.maxConnections = connections
        settings.requestTimeout = .seconds(600)
        let provider = Provider(options: settings)
        let devices = (0..<count).map { SendBenchmark.makeDevice($0) }
        let note = PushNotification().setAlertText("Hello, this is a benchmark notification").setBadge(1)
        _ = note.compiledPayload()
        print("http2: \(count) notifications through Provider into HTTP2MockGateway over TLS, \(streams) streams, "
            + "\(connections) connection(s), \(usesCertificate ? "certificate authentication" : "provider tokens"); "
            + "\(options.rounds) round(s)")
        if options.includes("throughput") {
            var failures = 0
            let threadStart = ThreadCPUTime.seconds(named: Provider.threadName)
            let seconds = measureRounds(options.rounds) {
                let responses = blocking { await provider.send(note, to: devices) }
                failures += responses.count { !$0.isSuccess }
            }
            let threadCPU = ThreadCPUTime.seconds(named: Provider.threadName) - threadStart
            // The gateway's connection thread started with the first round's connection.
            let gatewayCPU = ThreadCPUTime.seconds(named: gatewayThreadName)
            report("throughput (sendMany)", operations: count, seconds: seconds, unit: "notifications/s")
            // Each end's own cost: what one core could carry if the other end were elsewhere.
            // Both ends share this machine's two cores; the busier one bounds the figure.
            let sent = Double(count * (options.rounds + 1))
            for (name, cpu) in [("provider I/O thread", threadCPU), ("gateway connection thread", gatewayCPU)] {
                print(name.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + " \(String(format: "%.2f", cpu / sent * 1e6)) µs CPU a notification "
                    + "(\(format(sent / max(cpu, 0.001))) notifications/s a core)")
            }
            if failures > 0 { throw BenchUsageError(description: "http2: \(failures) not delivered") }
        }
        if options.includes("memory") {
            try memory(gateway: gateway, provider: provider, devices: Array(devices.prefix(100_000)), note: note)
        }
        blocking { await provider.shutdown() }
    }

    /// `--port N --certs DIR [--payload FILE]`: the client alone, against a server on
    /// `127.0.0.1:N` (nghttpd, say), with a provider token made from `DIR`'s key, `--streams`
    /// in flight on one connection.
    static func runAgainstServer(port: Int, options: BenchOptions) throws {
        guard let certs = options.paths["--certs"] else {
            throw BenchUsageError(description: "http2 --port needs --certs DIR (its ca.pem and the provider key apn certs writes)")
        }
        guard let port = UInt16(exactly: port) else { throw BenchUsageError(description: "--port \(port) is not a port") }
        let streams = max(1, options.values["--streams"] ?? 1_000)
        var settings = Provider.Options()
        settings.authentication = .token(
            keyID: "MOCKKEY001", teamID: "MOCKTEAM01", key: .file(certs + "/AuthKey_MOCKKEY001.p8"))
        settings.topic = "com.example.app"  // apn certs' topic
        settings.address = "127.0.0.1"
        settings.port = port
        settings.ca = [.file(certs + "/ca.pem")]
        settings.maxConcurrentStreams = streams
        settings.maxConnections = 1
        settings.requestTimeout = .seconds(600)
        let provider = Provider(options: settings)
        let devices = (0..<options.operations).map { SendBenchmark.makeDevice($0) }
        // `--payload FILE`: JSON sent as it is (the script gives h2load the same bytes).
        let note = try options.paths["--payload"].map { try APN.Notification(payloadJSON: Array(try Data(contentsOf: URL(fileURLWithPath: $0)))) }
            ?? PushNotification().setAlertText("Hello, this is a benchmark notification").setBadge(1)
        _ = note.compiledPayload()
        print("http2: \(options.operations) notifications a round through Provider to 127.0.0.1:\(port), \(streams) streams, "
            + "one connection, provider tokens; \(options.rounds) round(s) after one unmeasured")
        var failures = 0
        let seconds = measureRounds(options.rounds) {
            let responses = blocking { await provider.send(note, to: devices) }
            failures += responses.count { !$0.isSuccess }
        }
        report("throughput (sendMany)", operations: options.operations, seconds: seconds, unit: "notifications/s")
        blocking { await provider.shutdown() }
        if failures > 0 { throw BenchUsageError(description: "http2: \(failures) not answered 200") }
    }

    /// Resident memory with `devices.count` requests sent to a gateway that answers none
    /// for an hour: `streams` of them in flight, the rest waiting in the provider's table.
    static func memory(gateway: HTTP2MockGateway, provider: Provider, devices: [Device], note: APN.Notification) throws {
        var faults = gateway.faults
        faults.responseDelay = .seconds(3600)
        gateway.setFaults(faults)
        let before = SessionBenchmark.residentBytes()
        // The completion-handler form posts before returning, so the barrier comes after.
        for device in devices { provider.send(note, to: device) { _ in } }
        blocking { await provider.barrier() }
        let after = SessionBenchmark.residentBytes()
        print("resident memory, \(devices.count) waiting or in flight".padding(toLength: 34, withPad: " ", startingAt: 0)
            + " \(format(Double(after - before))) bytes for them (\((after - before) / devices.count) bytes each: "
            + "request headers, table entry, completion; payload shared; devices made before)")
        // The held answers would come in an hour: stopping the gateway fails those in flight
        // and, once reconnecting fails, those waiting.
        _ = gateway.stop()
    }
}
