import APN
import APNWire
import Foundation

/// `apn-bench session`: notifications/s through the gateway session state machine alone
/// (no sockets, no TLS), with one rejection per 1,000 notifications; and the memory one
/// cached entry costs beyond its shared payload.
enum SessionBenchmark {
    /// Stands for the connection's per-push record; a pool is reused so that the figure
    /// is the state machine's, not the allocator's. The session is APN's
    /// `MeasuredGatewaySession`: specialized inside APN, as a `Connection`'s is.
    typealias Tag = MeasuredGatewaySession.Record
    static let tags = (0..<65_536).map { _ in Tag() }

    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 5_000_000)
        let tokens = EncodeBenchmark.distinctTokens(count: 65_536)
        let payload = try EncodeBenchmark.precompiledPayload(length: 100)
        print("session: command 2, \(payload.count)-byte payload, cacheLength 1000, one rejection per 1,000 "
            + "(naming the 50th latest), \(options.operations) notifications a round, \(options.rounds) rounds")
        for transmitted in [false, true] {
            let label = transmitted ? "throughput, transmitted events on" : "throughput"
            guard options.includes(label) else { continue }
            var settled = 0
            let seconds = measureRounds(options.rounds) {
                settled = drive(options.operations, tokens: tokens, payload: payload, transmitted: transmitted)
            }
            guard settled == options.operations else {
                throw BenchUsageError(description: "only \(settled) of \(options.operations) notifications settled")
            }
            report(label, operations: options.operations, seconds: seconds, unit: "notifications/s")
        }
        guard options.includes("memory") else { return }
        print("memory per cached entry".padding(toLength: 34, withPad: " ", startingAt: 0)
            + " \(MeasuredGatewaySession.entryFootprint) bytes (slot size); "
            + String(format: "%.1f", measuredBytesPerCachedEntry(tokens: tokens, payload: payload))
            + " bytes measured (resident growth per entry over 1,000,000 cached, payload and token shared)")
    }

    /// Pushes `count` notifications through one session, answering like a gateway that
    /// rejects one in 1,000; returns how many reached an outcome. `transmitted` turns on
    /// the per-notification event a `transmitted` listener would need.
    static func drive(_ count: Int, tokens: [[UInt8]], payload: [UInt8], transmitted: Bool) -> Int {
        var configuration = SessionConfiguration()
        configuration.command = .frame
        configuration.emitsTransmitted = transmitted
        var session = MeasuredGatewaySession(configuration: configuration)
        var now = Timestamp.zero
        var settled = 0
        var sinceRejection = 0
        var writtenOnConnection = 0

        /// Performs what the session asks, as a driver whose socket connects and closes at
        /// once and takes every byte.
        func drain() {
            while let action = session.nextAction() {
                switch action {
                case .outcome: settled += 1
                case .connect: session.connected(now: now)
                case .close: session.closed(now: now)
                default: break
                }
            }
            while session.hasOutboundBytes {
                session.writeAll(now: now)
                drain()
            }
        }

        let tags = Self.tags // a local copy: no lazy-global check per push
        var pushed = 0
        while pushed < count {
            let batch = min(64, count - pushed)
            for offset in 0..<batch {
                let index = (pushed + offset) & (tokens.count - 1)
                session.push(tags[index], token: tokens[index], payload: payload, now: now)
            }
            pushed += batch
            drain()
            sinceRejection += batch
            writtenOnConnection += batch
            if sinceRejection >= 1000 {
                // The gateway rejects the notification written 50 before the latest, as an
                // error response arriving a moment later would: the 49 after it are resent.
                sinceRejection -= 1000
                var response = WireBuffer()
                response.writeErrorResponse(status: .invalidToken, identifier: UInt32(max(1, writtenOnConnection - 50)))
                writtenOnConnection = 49
                session.bytesReceived(response.readableBytesArray, now: now)
                drain()
            }
            if pushed % 16_384 < 64 {
                now = now + .seconds(3)
                session.tick(now: now)
                drain()
            }
        }
        session.shutdown(now: now)
        for _ in 0..<4 {
            drain()
            now = now + .seconds(3)
            session.tick(now: now)
        }
        drain()
        return settled
    }

    /// Resident memory growth per entry with a million written, unconfirmed notifications
    /// in the cache, all sharing one payload and a pool of tokens. Pushed on a connected
    /// session and written as they go, so they pass straight into the cache.
    static func measuredBytesPerCachedEntry(tokens: [[UInt8]], payload: [UInt8]) -> Double {
        let entries = 1_000_000
        var configuration = SessionConfiguration()
        configuration.cacheLength = entries
        var session = MeasuredGatewaySession(configuration: configuration)
        // One tag object per entry, as the connection keeps one record per single push:
        // allocated before measuring, since it is the caller's memory, not the session's.
        let entryTags = (0..<entries).map { _ in Tag() }
        session.push(entryTags[0], token: tokens[0], payload: payload, now: .zero)
        session.connected(now: .zero)
        let before = residentBytes()
        for index in 1..<entries {
            session.push(entryTags[index], token: tokens[index & (tokens.count - 1)], payload: payload, now: .zero)
            if index % 256 == 0 {
                session.writeAll(now: .zero)
                while let _ = session.nextAction() {}
            }
        }
        session.writeAll(now: .zero)
        while let _ = session.nextAction() {}
        let after = residentBytes()
        precondition(session.unresolvedCount == entries)
        return Double(after - before) / Double(entries)
    }

    /// This process's resident set size, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
