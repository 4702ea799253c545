import APNSupport
import APN
import APNTLS
import Foundation
import APNMockGateway
import APNTestSupport

/// `apn-bench send`: ``Connection`` end to end against an in-process ``MockGateway`` over
/// mutual TLS on loopback, command 2, one socket. Each round has a fresh gateway and
/// connection; the time runs from the first push until the gateway has recorded every
/// notification it should accept. Devices are made before the clock starts.
enum SendBenchmark {
    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 2_000_000)
        let count = options.operations
        print("send: Connection → in-process MockGateway, TLS loopback, command 2, one socket, fastMode, "
            + "\(count) notifications a round, \(options.rounds) rounds (+1 warm-up)")
        let shared = precompiled()
        // The memory scenarios run in a child process each (see `runInChildProcess`).
        if options.only == "memory-queued" {
            try memoryQueued(count: min(count, 1_000_000))
            return
        }
        if options.only == "gateway-process" {
            try GatewayProcess.serve(announcingAfter: count)
            return
        }
        if options.only == "memory-in-flight" {
            try memoryInFlight(count: min(count, 1_000_000))
            return
        }
        let devices = (0..<count).map { makeDevice($0) }
        let batches = stride(from: 0, to: count, by: 1_000).map { Array(devices[$0..<min($0 + 1_000, count)]) }

        if options.includes("precompiled") {
            let seconds = try rounds(options.rounds) { try round(devices, payload: .shared(shared, batches: batches)) }
            report("precompiled 100-byte payload", operations: count, seconds: seconds.map(\.seconds), unit: "notifications/s")
        }
        if options.includes("confirming") {
            // Rolling confirmation's price: a round trip and a reconnect per marker.
            for interval in [100_000, 10_000] {
                let seconds = try rounds(options.rounds) {
                    try round(devices, payload: .shared(shared, batches: batches), confirmationInterval: interval)
                }
                report("confirming every \(interval)", operations: count, seconds: seconds.map(\.seconds), unit: "notifications/s")
            }
        }
        if options.includes("compiled") {
            let seconds = try rounds(options.rounds) {
                try round(devices, payload: .compiledEachTime)
            }
            report("payload compiled per notification", operations: count, seconds: seconds.map(\.seconds), unit: "notifications/s")
        }
        if options.includes("rejections") {
            let rejected = Set(stride(from: 9_999, to: count, by: 10_000))
            let results = try rounds(options.rounds) {
                try round(devices, payload: .shared(shared, batches: batches), rejecting: rejected)
            }
            report("1 rejection per 10,000", operations: count, seconds: results.map(\.seconds), unit: "notifications/s")
            let resent = results.map(\.resent).sorted()
            print("  rejections \(rejected.count) a round; resent \(resent[resent.count / 2]) a round (median); "
                + "every accepted notification recorded, nothing after a rejection lost")
        }
        if options.includes("memory") {
            // Each in a process of its own, so neither the other scenarios' memory is in
            // the figure nor its million freed records in their heap.
            try runInChildProcess("memory-queued", count: min(count, 1_000_000))
            try runInChildProcess("memory-in-flight", count: min(count, 1_000_000))
        }
    }

    struct RoundResult {
        var seconds: Double
        var resent: Int
    }

    /// Where each notification's payload comes from.
    enum Payload {
        /// One notification compiled once, pushed to the devices in arrays of 1,000 (as a
        /// caller holding its recipient lists would; the arrays are made before timing).
        case shared(APN.Notification, batches: [[Device]])
        /// A new notification per device, compiled when pushed.
        case compiledEachTime
    }

    static func rounds(_ rounds: Int, _ body: () throws -> RoundResult) throws -> [RoundResult] {
        _ = try body()
        return try (0..<rounds).map { _ in try body() }
    }

    /// One connection pushes every device; returns once the gateway has recorded all it
    /// accepts, and checks what it recorded.
    static func round(
        _ devices: [Device], payload: Payload, rejecting rejected: Set<Int> = [], confirmationInterval: Int? = nil
    ) throws -> RoundResult {
        var faults = MockGateway.Faults()
        for n in rejected { faults.rejectToken(devices[n].token) }
        let gateway = try MockGateway(configuration: MockGateway.Configuration(faults: faults))
        defer { _ = gateway.stop() }
        try gateway.start()
        var settings = try options(for: gateway)
        settings.confirmationInterval = confirmationInterval
        let connection = Connection(options: settings)
        let expected = devices.count - rejected.count

        let clock = ContinuousClock()
        let start = clock.now
        switch payload {
        case .shared(let note, let batches):
            for batch in batches { connection.push(note, to: batch) }
        case .compiledEachTime:
            for (n, device) in devices.enumerated() {
                connection.push(Notification().setAlertText("message \(n)").setBadge(n % 100), to: device)
            }
        }
        guard gateway.waitForRecords(count: expected, timeout: .seconds(600)) else {
            throw BenchUsageError(description: "the gateway recorded \(gateway.recordCount) of \(expected)")
        }
        let elapsed = clock.now - start
        let report = blockingShutdown(connection)
        guard report.total == devices.count, report.rejected == rejected.count,
              gateway.recordCount == expected else {
            throw BenchUsageError(description: "outcomes \(report), records \(gateway.recordCount) of \(expected)")
        }
        return RoundResult(
            seconds: elapsed.inSeconds,
            resent: report.resent)
    }

    /// Resident memory with `count` notifications written, received by the gateway and not
    /// yet settled (a grace window of an hour): what the resend cache holds for them by
    /// default (`cacheLength` nil), beside their records. The gateway runs in a process of
    /// its own, so its records of them are not counted.
    static func memoryInFlight(count: Int) throws {
        let gateway = try GatewayProcess(recordsBeforeAnnouncing: count)
        defer { gateway.stop() }
        var settings = gateway.options()
        settings.format = .frame
        settings.fastMode = true
        settings.minConnections = 0
        settings.shutdownGraceWindow = .seconds(3600)
        let shared = precompiled()
        let devices = (0..<count).map { makeDevice($0) }
        let batches = stride(from: 0, to: count, by: 1_000).map { Array(devices[$0..<min($0 + 1_000, count)]) }
        let before = SessionBenchmark.residentBytes()
        let connection = Connection(options: settings)
        for batch in batches { connection.push(shared, to: batch) }
        guard try gateway.nextLine() == "recorded" else { throw BenchUsageError(description: "memory in flight: no record") }
        let after = SessionBenchmark.residentBytes()
        print("resident memory, \(count) in flight".padding(toLength: 34, withPad: " ", startingAt: 0)
            + " \(format(Double(after))) bytes in all, \(format(Double(after - before))) bytes for them "
            + "(\((after - before) / count) bytes each: record and session entry, kept for resending until settled; "
            + "payload shared; devices made before)")
        // A confirmed flush settles them all at once; the connection then has nothing open.
        let confirmed = blocking { await connection.flush() }
        guard confirmed.accepted == count else { throw BenchUsageError(description: "memory in flight: \(confirmed)") }
        _ = blockingShutdown(connection)
    }

    /// Resident memory with `count` notifications queued on a connection that cannot send
    /// (its gateway refuses connections; the backoff clock is held still).
    static func memoryQueued(count: Int) throws {
        let gateway = try MockGateway()
        try gateway.start()
        var settings = try options(for: gateway)
        _ = gateway.stop()
        let clock = ManualClock()
        settings.clock = .manual(clock)
        settings.connectionRetryLimit = 1
        let shared = precompiled()
        let before = SessionBenchmark.residentBytes()
        let connection = Connection(options: settings)
        for n in 0..<count { connection.push(shared, to: makeDevice(n)) }
        let done = DispatchSemaphore(value: 0)
        Task {
            await connection.barrier()
            done.signal()
        }
        done.wait()
        let after = SessionBenchmark.residentBytes()
        print("resident memory, \(count) queued".padding(toLength: 34, withPad: " ", startingAt: 0)
            + " \(format(Double(after))) bytes in all, \(format(Double(after - before))) bytes for the queue "
            + "(\((after - before) / count) bytes each: device, record, session entry; payload shared)")
        // Let the retry limit end it (514 for all), so the queue is freed: move the clock
        // past each backoff until the shutdown reports.
        let result = Handoff<DeliveryReport>()
        connection.shutdown { result.put($0) }
        var report = result.take(waitingAtMost: .milliseconds(50))
        while report == nil {
            clock.advance(by: .seconds(600))
            report = result.take(waitingAtMost: .milliseconds(50))
        }
        guard let report, report.failed == count else { throw BenchUsageError(description: "memory: \(String(describing: report))") }

    }

    /// Runs `apn-bench BENCH --only MEASUREMENT` in a process of its own and prints its
    /// last line: a memory figure free of the other measurements' heap.
    static func runInChildProcess(_ scenario: String, count: Int, bench: String = "send") throws {
        let child = try ChildProcess(
            CommandLine.arguments[0], arguments: [bench, "--only", scenario, "--operations", "\(count)", "--rounds", "1"],
            standardError: .inherit)
        let text = String(decoding: ChildProcess.readToEnd(child.standardOutput!), as: UTF8.self)
        let termination = child.waitForExit(timeout: .seconds(3600))
        guard termination == .exited(0), let line = text.split(separator: "\n").last else {
            throw BenchUsageError(description: "the \(scenario) scenario failed (\(termination.map { "\($0)" } ?? "still running"))")
        }
        print(line)
    }

    static func options(for gateway: MockGateway) throws -> Connection.Options {
        let credentials = try MockCredentials(gateway)
        var options = Connection.Options()
        options.address = "127.0.0.1"
        options.port = gateway.gatewayPort
        options.cert = credentials.cert
        options.key = credentials.key
        options.ca = credentials.ca
        options.format = .frame
        options.fastMode = true
        options.minConnections = 0
        return options
    }

    /// `{"aps":{"alert":"xxx…"}}`, 100 bytes.
    static func precompiled() -> APN.Notification {
        let note = Notification().setAlertText(String(repeating: "x", count: 80))
        precondition(note.length() == 100)
        _ = note.compiledPayload()
        return note
    }

    /// The number `makeDevice` made a token from.
    static func number(of token: [UInt8]) -> Int {
        Int(token.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    static func makeDevice(_ n: Int) -> Device {
        var token = [UInt8](repeating: 0xAB, count: 32)
        withUnsafeBytes(of: UInt64(n).bigEndian) { token.replaceSubrange(24..<32, with: $0) }
        return try! Device(token: token)
    }

    static func blockingShutdown(_ connection: Connection) -> DeliveryReport {
        blocking { await connection.shutdown() }
    }
}
