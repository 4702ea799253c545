import APNTLS
import APNWire
import Foundation
import APNMockGateway

// `apn mock-gateway`'s flags, read step by step: the binary gateway's listeners and TLS,
// its faults, the feedback it queues, the certificate and record options, and the HTTP/2
// mock's flags.
extension MockGatewayCommand {
    /// What the flags ask for, checked; a flag given wrong throws the usage error the first
    /// step that reads it finds.
    static func parse(_ typed: Flags) throws(UsageError) -> Options {
        let (flags, _) = try Flags.withConfigFile(typed, groups: flagGroups)
        guard flags.positional.isEmpty else {
            throw UsageError("mock-gateway takes no arguments, got \"\(flags.positional[0])\"")
        }
        var options = Options()
        options.configuration = try binaryConfiguration(flags)
        options.configuration.faults = try faults(flags)
        options.feedback = try feedbackTuples(flags)
        try parseFileOptions(flags, into: &options)
        options.http2 = try HTTP2MockFlags.configuration(flags, host: options.configuration.host)
        // Both gateways serve as many connections, as long idle.
        options.http2?.maxConnections = options.configuration.maxConnections
        options.http2?.idleTimeout = options.configuration.idleTimeout
        options.admin = try AdminFlag.parse(flags)
        return options
    }

    /// Decides the binary gateway's listeners and TLS: `--host`, `--port`, `--feedback-port`,
    /// `--tls-min`, `--no-session-tickets`, `--no-client-cert`, `--max-connections`, `--idle-timeout`.
    private static func binaryConfiguration(_ flags: Flags) throws(UsageError) -> MockGateway.Configuration {
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
        configuration.sessionTickets = !flags.has("--no-session-tickets")
        configuration.requiresClientCertificate = !flags.has("--no-client-cert")
        configuration.maxConnections = try flags.integer("--max-connections", in: 1...1_000_000) ?? configuration.maxConnections
        if let seconds = try flags.integer("--idle-timeout", in: 0...86_400) {
            configuration.idleTimeout = seconds == 0 ? nil : .seconds(seconds)
        }
        return configuration
    }

    /// Decides the binary gateway's faults: the refusals, `--shutdown-after`, `--drop-after`,
    /// `--error-delay-ms`, then those of a remote gateway.
    private static func faults(_ flags: Flags) throws(UsageError) -> MockGateway.Faults {
        var faults = MockGateway.Faults()
        try parseRejections(flags, into: &faults)
        faults.shutdownAfter = try flags.integer("--shutdown-after", in: 1...Int.max)
        faults.closeAfter = try flags.integer("--drop-after", in: 1...Int.max)
        if let delay = try flags.integer("--error-delay-ms", in: 0...3_600_000) {
            faults.errorResponseDelay = .milliseconds(delay)
        }
        try parseRemoteFaults(flags, into: &faults)
        return faults
    }

    /// Decides what the gateway refuses: `--reject` (tokens), `--reject-id` (identifiers),
    /// `--reject-nth` (positions), each with its status.
    private static func parseRejections(_ flags: Flags, into faults: inout MockGateway.Faults) throws(UsageError) {
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
    }

    /// The faults of a remote gateway and the other "after N" ends: `--reset-after`,
    /// `--drop-every`, `--reset-every`, `--stall-after`, `--stall-then`, `--error-lag`, `--error-trickle-ms`,
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
                for: .milliseconds(milliseconds), then: try stallEnd(flags))
        } else if flags.value("--stall-then") != nil {
            throw UsageError("--stall-then needs --stall-after")
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

    /// `--stall-then`'s ending; resume when not given.
    private static func stallEnd(_ flags: Flags) throws(UsageError) -> MockGateway.Faults.StallEnd {
        guard let text = flags.value("--stall-then") else { return .resume }
        let ends: [String: MockGateway.Faults.StallEnd] = ["resume": .resume, "close": .close, "reset": .reset, "never": .never]
        guard let end = ends[text] else {
            throw UsageError("--stall-then: \"\(text)\" is not one of resume, close, reset, never")
        }
        return end
    }

    /// Decides the feedback tuples to queue: each `--feedback`, then the lines of `--feedback-file`.
    private static func feedbackTuples(_ flags: Flags) throws(UsageError) -> [(time: UInt32, token: [UInt8])] {
        var tuples: [(time: UInt32, token: [UInt8])] = []
        for text in flags.all("--feedback") {
            tuples.append(try feedbackTuple(text, separator: ":", what: "--feedback"))
        }
        if let path = flags.value("--feedback-file") {
            tuples.append(contentsOf: try feedbackFileTuples(path))
        }
        return tuples
    }

    /// The tuples of a `--feedback-file`: one TOKEN:UNIXTIME (or TOKEN UNIXTIME) a line,
    /// blank lines and `#` comments skipped.
    private static func feedbackFileTuples(_ path: String) throws(UsageError) -> [(time: UInt32, token: [UInt8])] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else {
            throw UsageError("--feedback-file: cannot read \(path)")
        }
        var tuples: [(time: UInt32, token: [UInt8])] = []
        // By `isNewline`: "\r\n" is one Character, which a split on "\n" would not split.
        for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let separator: Character = line.contains(":") ? ":" : " "
            tuples.append(try feedbackTuple(line, separator: separator, what: "--feedback-file \(path) line \(number + 1)"))
        }
        return tuples
    }

    /// Decides the files the run uses: `--certs` (the certificate directory) and `--record`.
    private static func parseFileOptions(_ flags: Flags, into options: inout Options) throws(UsageError) {
        if let certificates = flags.value("--certs") {
            guard !certificates.isEmpty else { throw UsageError("--certs must not be empty") }
            options.certificates = certificates
        }
        if let record = flags.value("--record") {
            guard !record.isEmpty else { throw UsageError("--record must not be empty") }
            options.record = record
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
            throw UsageError("\(what): \"\(text.prefix(100))\" is not TOKEN:UNIXTIME with the token in hex")
        }
        guard token.count <= MockGateway.FeedbackTokenError.maximumLength else {
            throw UsageError(
                "\(what): the token is \(token.count) bytes; a feedback tuple carries at most "
                    + "\(MockGateway.FeedbackTokenError.maximumLength) (its length field is 16 bits)")
        }
        let time = try Flags.integer(
            String(parts[1]).trimmingCharacters(in: .whitespaces), in: 0...UInt32.max, what: what)
        return (time, token)
    }
}
