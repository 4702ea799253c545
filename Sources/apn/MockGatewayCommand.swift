import APN
import APNTLS
import APNWire
import Dispatch
import Foundation
import MockGateway
import Synchronization

/// `apn mock-gateway …`: runs a ``MockGateway`` until SIGINT or SIGTERM.
enum MockGatewayCommand {
    static let usage = """
        usage: apn mock-gateway [options]
          --host ADDR                 address both listeners bind (default 127.0.0.1)
          --port N                    gateway port (default 0: the system chooses)
          --feedback-port N           feedback port (default 0)
          --certs DIR                 use DIR/ca.pem, server.pem, server.key; if none exist, generate
                                      them there first (with ca.key, client.pem, client.key, client.p12).
                                      Without it a fresh set is generated in a new temporary directory.
          --record FILE               append each accepted notification to FILE as a JSON line
          --reject TOKEN[:STATUS]     refuse a token (hex) with STATUS (default 8); repeatable
          --reject-id ID[:STATUS]     refuse an identifier; repeatable
          --reject-nth N[:STATUS]     refuse the N-th notification overall; repeatable
          --shutdown-after N          answer status 10 after the N-th accepted notification
          --drop-after N              close silently after the N-th accepted notification
          --reset-after N             close with a TCP reset after the N-th accepted notification
          --drop-every N              close silently after every N-th accepted notification
          --reset-every N             close with a TCP reset after every N-th accepted notification
          --stall-after N[:MS]        stop reading for MS milliseconds (default 1000) after the N-th
                                      accepted notification, so the client's writes block
          --error-delay-ms MS         wait MS milliseconds before each error response, reading and
                                      discarding what arrives meanwhile
          --error-lag N               read and discard N more notifications before an error response
                                      (or until the client has sent nothing for 100 ms)
          --error-trickle-ms MS       write each error response one byte per TLS record, MS ms apart
          --error-id ID               send identifier ID (decimal or 0x hex) in every error response
          --latency-ms MS             one-way network latency on every connection: judge bytes MS ms
                                      after they arrive and answer MS ms after deciding, reading on
                                      meanwhile (holding up to 16 MiB)
          --read-rate N               process at most N notifications a second on each connection;
                                      beyond that stop reading, so the client's writes block
          --feedback TOKEN:UNIXTIME   queue a feedback tuple; repeatable
          --feedback-file FILE        queue tuples from FILE, one TOKEN:UNIXTIME (or TOKEN UNIXTIME)
                                      per line; blank lines and lines starting with # are skipped
          --feedback-write-size N     write feedback tuples N bytes at a time (default: all at once)
          --feedback-pause-ms MS      pause MS milliseconds between those writes (a slow service)
          --tls-min 1.0|1.1|1.2|1.3   oldest TLS version accepted (default 1.2)
          --no-session-tickets        do not issue TLS session tickets
          --no-client-cert            do not require a client certificate
        \(HTTP2MockFlags.usage)
        Prints {"gateway":"HOST:PORT","feedback":"HOST:PORT","certs":"DIR"} once started, runs until
        SIGINT or SIGTERM, then prints a JSON summary and exits 0. Bad options exit with status 2.
        """

    private static let valued: Set<String> = Set<String>([
        "--host", "--port", "--feedback-port", "--certs", "--record", "--reject", "--reject-id", "--reject-nth",
        "--shutdown-after", "--drop-after", "--error-delay-ms", "--feedback", "--feedback-file", "--tls-min",
        "--reset-after", "--drop-every", "--reset-every", "--stall-after", "--error-lag", "--error-trickle-ms", "--error-id", "--latency-ms",
        "--read-rate", "--feedback-write-size", "--feedback-pause-ms",
    ]).union(HTTP2MockFlags.valued)
    private static let switches = Set<String>(["--no-session-tickets", "--no-client-cert"]).union(HTTP2MockFlags.switches)

    /// What the flags asked for, checked.
    struct Options {
        var configuration = MockGateway.Configuration()
        var certificates: String?
        var record: String?
        var feedback: [(time: UInt32, token: [UInt8])] = []
        /// The HTTP/2 gateway's configuration, with `--http2`.
        var http2: HTTP2MockGateway.Configuration?
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let flags = try Flags(arguments, valued: valued, switches: switches)
        if flags.wantsHelp {
            print(usage)
            return 0
        }
        var options = try parse(flags)
        let directory = try prepareCertificates(&options)

        var recordDescriptor: Int32?
        if let record = options.record {
            let descriptor = open(record, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw FileError(path: record, errno: errno) }
            recordDescriptor = descriptor
        }

        // Signals first, so one that arrives while starting is not fatal.
        let stopSignals = StopSignals()

        let gateway = try MockGateway(configuration: options.configuration)
        for tuple in options.feedback {
            try gateway.queueFeedback(time: tuple.time, token: tuple.token)
        }
        try gateway.start()
        let http2 = try options.http2.map { configuration in
            let http2 = try HTTP2MockGateway(configuration: configuration)
            try http2.start()
            return http2
        }

        var recorders = recordDescriptor.map { [RecordWriter(gateway: gateway, descriptor: $0)] } ?? []
        if let recordDescriptor, let http2 { recorders.append(RecordWriter(http2: http2, descriptor: recordDescriptor)) }
        for recorder in recorders { recorder.start() }

        let host = options.configuration.host.contains(":") ? "[\(options.configuration.host)]" : options.configuration.host
        var started: [(String, JSONValue)] = [
            ("gateway", .string("\(host):\(gateway.gatewayPort)")),
            ("feedback", .string("\(host):\(gateway.feedbackPort)")),
        ]
        if let http2 { started.append(("http2", .string("\(host):\(http2.port)"))) }
        started.append(("certs", .string(directory)))
        LineWriter.stdout(.object(started))

        stopSignals.wait()

        for recorder in recorders { recorder.requestStop() }
        gateway.stop()
        let http2Summary = http2?.stop()
        for recorder in recorders { recorder.finish() }
        if let recordDescriptor { close(recordDescriptor) }

        var byStatus: [UInt16: Int] = [:]
        for rejection in gateway.rejections {
            byStatus[rejection.status.rawValue, default: 0] += 1
        }
        LineWriter.stdout(
            .object([
                ("connections", .integer(gateway.connectionCount)),
                ("accepted", .integer(gateway.recordCount)),
                ("rejected", .object(byStatus.keys.sorted().map { (String($0), .integer(byStatus[$0]!)) })),
                ("feedback_connections", .integer(gateway.feedbackConnectionCount)),
                ("handshake_failures", .integer(gateway.handshakeFailureCount)),
            ] + (http2Summary.map { [("http2", HTTP2MockFlags.summary($0))] } ?? [])))
        return 0
    }

    // MARK: Flags

    static func parse(_ flags: Flags) throws(UsageError) -> Options {
        guard flags.positional.isEmpty else {
            throw UsageError("mock-gateway takes no arguments, got \"\(flags.positional[0])\"")
        }
        var options = Options()
        var configuration = MockGateway.Configuration()
        if let host = flags.value("--host") {
            guard !host.isEmpty else { throw UsageError("--host must not be empty") }
            configuration.host = host
        }
        configuration.gatewayPort = try flags.integer("--port", in: 0...UInt16.max) ?? 0
        configuration.feedbackPort = try flags.integer("--feedback-port", in: 0...UInt16.max) ?? 0
        if let version = flags.value("--tls-min") {
            let versions: [String: TLSVersion] = ["1.0": .tls1_0, "1.1": .tls1_1, "1.2": .tls1_2, "1.3": .tls1_3]
            guard let minimum = versions[version] else {
                throw UsageError("--tls-min: \"\(version)\" is not one of 1.0, 1.1, 1.2, 1.3")
            }
            configuration.minimumVersion = minimum
        }
        configuration.sessionTickets = !flags.switches.contains("--no-session-tickets")
        configuration.requiresClientCertificate = !flags.switches.contains("--no-client-cert")

        var faults = MockGateway.Faults()
        for text in flags.all("--reject") {
            let (token, status) = try withStatus(text, flag: "--reject")
            guard !token.isEmpty, let tokenBytes = bytes(fromHex: token) else {
                throw UsageError("--reject: \"\(token)\" is not a token in hex")
            }
            faults.rejectToken(tokenBytes, status: status)
        }
        for text in flags.all("--reject-id") {
            let (identifier, status) = try withStatus(text, flag: "--reject-id")
            faults.rejectIdentifier(
                try Flags.integer(identifier, in: 0...UInt32.max, what: "--reject-id"), status: status)
        }
        for text in flags.all("--reject-nth") {
            let (number, status) = try withStatus(text, flag: "--reject-nth")
            faults.rejectNotification(number: try Flags.integer(number, in: 1...Int.max, what: "--reject-nth"), status: status)
        }
        faults.shutdownAfter = try flags.integer("--shutdown-after", in: 1...Int.max)
        faults.closeAfter = try flags.integer("--drop-after", in: 1...Int.max)
        if let delay = try flags.integer("--error-delay-ms", in: 0...3_600_000) {
            faults.errorResponseDelay = .milliseconds(delay)
        }
        try parseRemoteFaults(flags, into: &faults)
        configuration.faults = faults

        for text in flags.all("--feedback") {
            options.feedback.append(try feedbackTuple(text, separator: ":", what: "--feedback"))
        }
        if let path = flags.value("--feedback-file") {
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
            else {
                throw UsageError("--feedback-file: cannot read \(path)")
            }
            for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = rawLine.trimmingCharacters(in: .whitespaces)
                if line.isEmpty || line.hasPrefix("#") { continue }
                let separator: Character = line.contains(":") ? ":" : " "
                options.feedback.append(
                    try feedbackTuple(line, separator: separator, what: "--feedback-file \(path) line \(number + 1)"))
            }
        }

        if let certificates = flags.value("--certs") {
            guard !certificates.isEmpty else { throw UsageError("--certs must not be empty") }
            options.certificates = certificates
        }
        if let record = flags.value("--record") {
            guard !record.isEmpty else { throw UsageError("--record must not be empty") }
            options.record = record
        }
        options.http2 = try HTTP2MockFlags.configuration(flags, host: configuration.host)
        options.configuration = configuration
        return options
    }

    /// The faults of a remote gateway and the other "after N" ends: `--reset-after`,
    /// `--drop-every`, `--reset-every`, `--stall-after`, `--error-lag`, `--error-trickle-ms`,
    /// `--error-id`, `--latency-ms`, `--read-rate`, `--feedback-write-size`, `--feedback-pause-ms`.
    private static func parseRemoteFaults(_ flags: Flags, into faults: inout MockGateway.Faults) throws(UsageError) {
        faults.resetAfter = try flags.integer("--reset-after", in: 1...Int.max)
        faults.closeEvery = try flags.integer("--drop-every", in: 1...Int.max)
        faults.resetEvery = try flags.integer("--reset-every", in: 1...Int.max)
        if let text = flags.value("--stall-after") {
            let (count, suffix) = Flags.splitSuffix(text)
            var milliseconds = 1_000
            if let suffix { milliseconds = try Flags.integer(suffix, in: 0...3_600_000, what: "--stall-after milliseconds") }
            faults.stallReads(
                afterAccepting: try Flags.integer(count, in: 1...Int.max, what: "--stall-after"),
                for: .milliseconds(milliseconds))
        }
        faults.errorResponseLag = try flags.integer("--error-lag", in: 0...Int.max) ?? 0
        faults.errorResponseByteInterval = try flags.integer("--error-trickle-ms", in: 0...3_600_000).map {
            .milliseconds($0)
        }
        faults.errorIdentifierOverride = try flags.integer("--error-id", in: 0...UInt32.max, hex: true)
        if let latency = try flags.integer("--latency-ms", in: 0...3_600_000) {
            faults.latency = .milliseconds(latency)
        }
        faults.readRate = try flags.integer("--read-rate", in: 1...TokenBucket.maximumRate)
        faults.feedbackWriteSize = try flags.integer("--feedback-write-size", in: 1...Int.max)
        if let pause = try flags.integer("--feedback-pause-ms", in: 0...60_000) {
            faults.feedbackWritePause = .milliseconds(pause)
        }
    }

    /// Splits `VALUE[:STATUS]`; STATUS defaults to 8 (invalid token).
    private static func withStatus(_ text: String, flag: String) throws(UsageError) -> (String, StatusCode) {
        let (value, suffix) = Flags.splitSuffix(text)
        guard let suffix else { return (text, .invalidToken) }
        let status = try Flags.integer(suffix, in: UInt8.min...UInt8.max, what: "\(flag) status")
        return (value, StatusCode(wire: status))
    }

    private static func feedbackTuple(_ text: String, separator: Character, what: String) throws(UsageError)
        -> (time: UInt32, token: [UInt8])
    {
        let parts = text.split(separator: separator, omittingEmptySubsequences: true)
        guard parts.count == 2, let token = bytes(fromHex: String(parts[0]).trimmingCharacters(in: .whitespaces)),
            !token.isEmpty
        else {
            throw UsageError("\(what): \"\(text)\" is not TOKEN:UNIXTIME with the token in hex")
        }
        let time = try Flags.integer(
            String(parts[1]).trimmingCharacters(in: .whitespaces), in: 0...UInt32.max, what: what)
        return (time, token)
    }

    // MARK: Certificates

    /// Loads (or generates, then loads) the server credentials and CA of `--certs`, or
    /// generates a set in a new temporary directory. Returns the directory.
    private static func prepareCertificates(_ options: inout Options) throws -> String {
        let directory: String
        if let given = options.certificates {
            directory = given
        } else {
            directory = try TemporaryDirectory.make(prefix: "apn-mock-gateway")
        }
        let path = { (name: String) in (directory as NSString).appendingPathComponent(name) }
        let names = ["ca.pem", "server.pem", "server.key"]
        let present = names.filter { FileManager.default.fileExists(atPath: path($0)) }
        if present.isEmpty {
            _ = try CertificateFiles.generate(in: directory, topic: "com.example.app", p12Password: "")
        } else if present.count != names.count {
            let missing = names.filter { !present.contains($0) }
            throw UsageError("--certs \(directory): has \(present.joined(separator: ", ")) but not \(missing.joined(separator: ", "))")
        }
        try CertificateFiles.configureServer(&options.configuration, from: directory)
        if var http2 = options.http2 {
            http2.serverCredentials = options.configuration.serverCredentials
            http2.clientCertificateAuthorities = options.configuration.clientCertificateAuthorities
            try HTTP2MockFlags.addCertificateDirectoryKey(&http2, from: directory)
            options.http2 = http2
        }
        return directory
    }
}

/// Appends accepted notifications to the record file as JSON lines, from a thread that waits
/// on the gateway's record count (a condition wait) rather than polling.
final class RecordWriter: Sendable {
    private let waitForRecords: @Sendable (Int) -> Bool
    private let lines: @Sendable (Int) -> [String]
    private let descriptor: Int32
    private let stopping = Atomic<Bool>(false)
    private let written = Mutex(0)
    private let finished = DispatchSemaphore(value: 0)

    /// Writes the binary gateway's records.
    convenience init(gateway: MockGateway, descriptor: Int32) {
        self.init(
            descriptor: descriptor, waitForRecords: { gateway.waitForRecords(count: $0, timeout: .seconds(1)) },
            lines: { gateway.records(from: $0).map(Self.line) })
    }

    /// Writes the HTTP/2 gateway's records (with `"protocol":"http2"`).
    convenience init(http2: HTTP2MockGateway, descriptor: Int32) {
        self.init(
            descriptor: descriptor, waitForRecords: { http2.waitForRecords(count: $0, timeout: .seconds(1)) },
            lines: { http2.records(from: $0).map(Self.line) })
    }

    private init(
        descriptor: Int32, waitForRecords: @escaping @Sendable (Int) -> Bool, lines: @escaping @Sendable (Int) -> [String]
    ) {
        self.descriptor = descriptor
        self.waitForRecords = waitForRecords
        self.lines = lines
    }

    /// Starts the writing thread.
    func start() {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .sequentiallyConsistent) {
                let next = written.withLock { $0 } + 1
                if waitForRecords(next) {
                    drain()
                }
            }
            finished.signal()
        }
        thread.name = "apn record writer"
        thread.start()
    }

    /// Asks the thread to stop after its current wait (stopping the gateway ends that wait).
    func requestStop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
    }

    /// Waits for the thread, then writes whatever it had not written yet.
    func finish() {
        finished.wait()
        drain()
    }

    /// Writes the records not yet written, each as one line.
    private func drain() {
        written.withLock { count in
            // Only the records not yet written are built: the gateway may hold millions.
            let lines = lines(count)
            for line in lines {
                LineWriter.write(line, to: descriptor)
            }
            count += lines.count
        }
    }

    /// One record as a JSON line.
    static func line(_ record: MockGateway.Record) -> String {
        var members: [(String, JSONValue)] = [
            ("connection", .integer(record.connection)),
            ("seq", .integer(record.sequence)),
            ("command", .integer(Int(record.command.rawValue))),
            ("identifier", record.identifier.map { .integer(Int($0)) } ?? .null),
            ("token", .string(hexString(record.token))),
        ]
        if let text = String(validating: record.payload, as: UTF8.self) {
            members.append(("payload", .string(text)))
        } else {
            members.append(("payload_base64", .string(Data(record.payload).base64EncodedString())))
        }
        members.append(("expiry", record.expiry.map { .integer(Int($0)) } ?? .null))
        members.append(("priority", record.priority.map { .integer(Int($0)) } ?? .null))
        return JSONValue.object(members).text
    }
}

extension RecordWriter {
    /// One HTTP/2 record as a JSON line.
    static func line(_ record: HTTP2MockGateway.Record) -> String {
        var members: [(String, JSONValue)] = [
            ("protocol", .string("http2")),
            ("connection", .integer(record.connection)),
            ("seq", .integer(record.sequence)),
            ("token", .string(record.token)),
            ("topic", .string(record.topic)),
            ("push_type", record.pushType.map { .string($0.rawValue) } ?? .null),
            ("priority", record.priority.map { .integer($0) } ?? .null),
            ("expiration", record.expiration.map { .integer($0) } ?? .null),
            ("collapse_id", record.collapseID.map { .string($0) } ?? .null),
            ("apns_id", .string(record.apnsID)),
        ]
        switch record.authentication {
        case .certificate: members.append(("auth", .string("certificate")))
        case .token(let keyID, let teamID):
            members.append(("auth", .string("token")))
            members.append(("key_id", .string(keyID)))
            members.append(("team_id", .string(teamID)))
        }
        if let text = String(validating: record.payload, as: UTF8.self) {
            members.append(("payload", .string(text)))
        } else {
            members.append(("payload_base64", .string(Data(record.payload).base64EncodedString())))
        }
        return JSONValue.object(members).text
    }
}

extension HTTP2MockFlags {
    /// The HTTP/2 gateway's part of the summary line.
    static func summary(_ summary: HTTP2MockGateway.Summary) -> JSONValue {
        .object([
            ("connections", .integer(summary.connections)),
            ("accepted", .integer(summary.accepted)),
            ("statuses", .object(summary.statuses.keys.sorted().map { (String($0), .integer(summary.statuses[$0]!)) })),
            ("reasons", .object(summary.reasons.keys.map(\.rawValue).sorted().map { name in
                (name, .integer(summary.reasons[ProviderReason(rawValue: name)]!))
            })),
        ])
    }
}
