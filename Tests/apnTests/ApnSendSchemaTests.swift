import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// Issue #26 item 4: `apn send` looks the same for both protocols. One accepted and one
/// rejected notification each way, with `--all`: the same outcome values, the same common
/// keys in the same order, the protocol's detail only in extra keys, and the same summary
/// keys with numbers as numbers. README's "apn send output" table is this schema.
@Suite("apn send: one schema for both protocols", .threadPerTest, .ownsChildProcesses)
struct ApnSendSchemaTests {
    static let accepted = String(repeating: "1a", count: 32)
    static let rejected = String(repeating: "2b", count: 32)

    /// The summary keys both protocols print, in order.
    static let summaryKeys = [
        "protocol", "total", "accepted", "rejected", "failed", "unknown_fate", "not_sent", "invalid_tokens",
        "interrupted", "seconds", "per_second",
    ]

    /// The raw lines of `apn send` (binary, or `--http2`) to one accepted and one rejected token.
    static func run(http2: Bool) throws -> [String] {
        let fixture = try SendFixture(
            gatewayArguments: http2 ? ["--http2", "--http2-reason", "\(rejected):BadDeviceToken"] : ["--reject", rejected])
        let address = http2 ? try #require(fixture.http2Address) : fixture.address
        let apn = try ApnProcess(
            ["send", "--certs", fixture.certs, "--address", address, "--token", accepted, "--token", rejected,
             "--alert", "Hi", "--all"]
                + (http2 ? ["--http2", "--ca", (fixture.certs as NSString).appendingPathComponent("ca.pem")] : []))
        let (status, standardError) = try apn.waitForExit(timeout: 60)
        #expect(status == 1, "one rejected: \(standardError)")
        return try apn.remainingLines()
    }

    /// The keys of a JSON object line, in the order written.
    /// (The lines are flat objects, so each key's first `"key":` is the key.)
    static func keys(_ line: String) throws -> [String] {
        let positions = try jsonObject(line).keys.map { key in
            (key, line.range(of: "\"\(key)\":").map { line.distance(from: line.startIndex, to: $0.lowerBound) } ?? -1)
        }
        return positions.sorted { $0.1 < $1.1 }.map(\.0)
    }

    @Test("the same line shape and summary keys: binary and --http2", arguments: [false, true])
    func schema(http2: Bool) throws {
        let lines = try Self.run(http2: http2)
        #expect(lines.count == 3, "\(lines)")
        let accepted = try #require(lines.first { $0.contains(Self.accepted) })
        let rejected = try #require(lines.first { $0.contains(Self.rejected) })
        #expect(accepted.hasPrefix(#"{"token":"\#(Self.accepted)","outcome":"accepted","#), "\(accepted)")
        #expect(rejected.hasPrefix(#"{"token":"\#(Self.rejected)","outcome":"rejected","#), "\(rejected)")
        for line in [accepted, rejected] {
            #expect(try Self.keys(line).last == "description", "\(line)")
        }
        let acceptedKeys = try Self.keys(accepted)
        let rejectedKeys = try Self.keys(rejected)
        if http2 {
            #expect(acceptedKeys == ["token", "outcome", "http_status", "apns_id", "attempts", "description"])
            #expect(rejectedKeys == ["token", "outcome", "http_status", "reason", "apns_id", "attempts", "description"])
            #expect(try jsonObject(rejected)["reason"] as? String == "BadDeviceToken", "Apple's reason as Apple spells it")
            #expect(try jsonObject(accepted)["description"] as? String == "accepted: HTTP 200 (Apple took it; not a delivery receipt)")
        } else {
            #expect(acceptedKeys == ["token", "outcome", "possibly_duplicated", "description"])
            #expect(rejectedKeys == ["token", "outcome", "status", "description"])
            #expect(try jsonObject(rejected)["status"] as? Int == 8)
        }

        let summaryLine = try #require(lines.last)
        let summaryKeys = try Self.keys(summaryLine)
        #expect(Array(summaryKeys.prefix(Self.summaryKeys.count)) == Self.summaryKeys, "\(summaryLine)")
        #expect(Array(summaryKeys.dropFirst(Self.summaryKeys.count)) == (http2 ? ["retried"] : ["possibly_duplicated", "resent", "confirmed"]))
        let summary = try jsonObject(summaryLine)
        #expect(summary["protocol"] as? String == (http2 ? "http2" : "binary"))
        #expect(summary["total"] as? Int == 2 && summary["accepted"] as? Int == 1 && summary["rejected"] as? Int == 1)
        let counted = ["accepted", "rejected", "failed", "unknown_fate", "not_sent"].compactMap { summary[$0] as? Int }
        #expect(counted.reduce(0, +) == 2, "the outcome counts add up to total")
        #expect(summary["seconds"] is NSNumber && !(summaryLine.contains(#""seconds":""#)), "seconds is a number")
    }

    @Test("README's apn send output table names every key and outcome the output has")
    func readmeTable() throws {
        let readme = try ApnReadmeSendTests.readme()
        let marker = try #require(readme.range(of: "<!-- apn-send-output"))
        let table = readme[marker.upperBound...].prefix { $0 != "#" }
        let keys = Self.summaryKeys + [
            "token", "outcome", "description", "error", "possibly_duplicated", "resent", "confirmed", "status",
            "http_status", "reason", "timestamp", "apns_id", "attempts", "retried", "unregistered", "stored",
            "not_stored", "recovery_file", "unknown_fate", "not_sent",
        ]
        for key in keys { #expect(table.contains("`\(key)`"), "README's table lacks `\(key)`") }
    }

    @Test("failed, both ways: the same keys, the library's code as a snake_case error", arguments: [
        ([String](), "initialisation_failed"),
        (["--http2", "--provider-token", "jwt", "--topic", "com.example.app"], "connection_failed"),
    ])
    func failedLine(extra: [String], error: String) throws {
        // A certificate that does not exist (binary), or a port nobody listens on (--http2).
        let apn = try ApnProcess(
            ["send", "--cert", "/nonexistent/c.pem", "--key", "/nonexistent/k.pem", "--address", "127.0.0.1:9",
             "--retry-limit", "0", "--token", Self.accepted, "--alert", "x"] + extra)
        _ = try apn.waitForExit()
        let lines = try apn.remainingLines()
        let line = try jsonObject(try #require(lines.first))
        #expect(line["outcome"] as? String == "failed")
        #expect(line["error"] as? String == error, "\(line)")
        #expect(try Self.keys(lines[0]).first == "token" && Self.keys(lines[0]).last == "description")
        #expect(try jsonObject(try #require(lines.last))["failed"] as? Int == 1)
    }
}
