import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// docs/BRIDGE.md's quick start, run as written but on ephemeral ports and in a temporary
/// directory: the block's `apn mock-gateway`, `apn bridge`, `apn send` and `apn feedback`
/// commands, their flags taken from docs/BRIDGE.md.
@Suite("docs/BRIDGE.md's apn bridge example", .threadPerTest, .ownsChildProcesses)
struct ApnReadmeBridgeTests {
    static let certs = "/tmp/apn-bridge-certs"

    /// The arguments after `.build/debug/apn SUBCOMMAND` in the example block, continuation
    /// lines joined, a trailing `&` dropped.
    static func arguments(_ subcommand: String) throws -> [String] {
        let page = try ApnReadmeSendTests.document("docs/BRIDGE.md")
        let marker = try #require(page.range(of: "<!-- apn-bridge-example"))
        let block = page[marker.upperBound...]
        let end = try #require(block.range(of: "\n```\n", range: block.index(block.startIndex, offsetBy: 10)..<block.endIndex))
        let text = block[..<end.lowerBound]
        var words = try ApnReadmeSendTests.command(in: text, startingWith: ".build/debug/apn \(subcommand) ")
        if words.last == "&" { words.removeLast() }
        return words
    }

    /// `arguments` with docs/BRIDGE.md's certificate folder replaced and each flag of `values` set.
    static func adapted(_ arguments: [String], certs: String, _ values: [String: String]) throws -> [String] {
        var result = arguments.map { $0.replacingOccurrences(of: Self.certs, with: certs) }
        for (flag, value) in values {
            let index = try #require(result.firstIndex(of: flag), "docs/BRIDGE.md's command has no \(flag)")
            result[index + 1] = value
        }
        return result
    }

    @Test("the quick start: both accepted, the 410 token read back from the bridge's feedback port")
    func quickStart() throws {
        // The mock's flags but --certs and its port, which the fixture sets.
        var mock = try Self.arguments("mock-gateway")
        for flag in ["--certs", "--http2-port"] {
            let index = try #require(mock.firstIndex(of: flag))
            mock.removeSubrange(index...index + 1)
        }
        let fixture = try SendFixture(gatewayArguments: mock)
        let upstream = try #require(fixture.http2Address)
        let bridge = try ApnProcess(
            ["bridge"]
                + (try Self.adapted(
                    try Self.arguments("bridge"), certs: fixture.certs,
                    ["--port": "0", "--feedback-port": "0", "--upstream": upstream])))
        let started = try jsonObject(try bridge.nextLine())
        let gateway = try #require(started["gateway"] as? String)
        let feedback = try #require(started["feedback"] as? String)

        let send = try ApnProcess(
            ["send"] + (try Self.adapted(try Self.arguments("send"), certs: fixture.certs, ["--address": gateway])))
        let (sendStatus, sendError) = try send.waitForExit()
        #expect(sendStatus == 0, "\(sendError)")
        let summary = try jsonObject(try #require(try send.remainingLines().last))
        #expect(summary["accepted"] as? Int == 2)

        let read = try ApnProcess(
            ["feedback"] + (try Self.adapted(try Self.arguments("feedback"), certs: fixture.certs, ["--address": feedback])))
        let (readStatus, readError) = try read.waitForExit()
        #expect(readStatus == 0, "\(readError)")
        let tuples = try read.remainingLines().map(jsonObject)
        #expect(tuples.count == 1)
        #expect(tuples.first?["time"] as? Int == 1_700_000_000)
        #expect(tuples.first?["token"] as? String == String(repeating: "cd", count: 32))

        bridge.send(SIGTERM)
        #expect(try bridge.waitForExit().status == 0)
        let bridgeSummary = try jsonObject(try #require(try bridge.remainingLines().last))
        #expect(bridgeSummary["delivered"] as? Int == 2)
        #expect(bridgeSummary["feedback_served"] as? Int == 1)
        #expect(try fixture.stop()["http2"] != nil)
    }
}
