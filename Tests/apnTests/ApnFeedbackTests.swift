import Foundation
import Testing
import APNTestSupport
import APNTestTraits

@Suite("apn feedback", .threadPerTest, .ownsChildProcesses)
struct ApnFeedbackTests {
    @Test("apn feedback --once prints the tuples apn mock-gateway --feedback serves, then nothing")
    func feedbackOnceAgainstTheMockProcess() throws {
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certs = (directory as NSString).appendingPathComponent("certs")
        #expect(try ApnProcess(["certs", certs]).waitForExit().status == 0)

        let token = String(repeating: "ab", count: 32)
        let short = "0102"
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certs, "--feedback", "\(token):1700000000", "--feedback", "\(short):1700000060",
        ])
        let started = try jsonObject(try gateway.nextLine())
        let feedbackAddress = try #require(started["feedback"] as? String)

        let first = try ApnProcess(["feedback", "--once", "--certs", certs, "--address", feedbackAddress])
        let lines = [try first.nextLine(), try first.nextLine()]
        let (status, standardError) = try first.waitForExit()
        #expect(status == 0, "stderr: \(standardError)")
        let entries = try lines.map(jsonObject)
        #expect(entries.map { $0["time"] as? Int } == [1_700_000_000, 1_700_000_060])
        #expect(entries.map { $0["token"] as? String } == [token, short])
        #expect(entries.first?["date"] as? String == "2023-11-14T22:13:20Z")

        let second = try ApnProcess(["feedback", "--once", "--certs", certs, "--address", feedbackAddress])
        let (secondStatus, _) = try second.waitForExit()
        #expect(secondStatus == 0)
        #expect(try second.remainingLines().isEmpty, "served once, then cleared")

        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("apn feedback --interval prints what the visit at start-up reads, and exits 0 on SIGTERM")
    func feedbackPollingAgainstTheMockProcess() throws {
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certs = (directory as NSString).appendingPathComponent("certs")
        #expect(try ApnProcess(["certs", certs]).waitForExit().status == 0)
        let token = String(repeating: "cd", count: 32)
        let gateway = try ApnProcess(["mock-gateway", "--certs", certs, "--feedback", "\(token):1700000000"])
        let started = try jsonObject(try gateway.nextLine())
        let feedbackAddress = try #require(started["feedback"] as? String)

        let polling = try ApnProcess(["feedback", "--interval", "3600", "--certs", certs, "--address", feedbackAddress])
        let entry = try jsonObject(try polling.nextLine())
        #expect(entry["time"] as? Int == 1_700_000_000)
        #expect(entry["token"] as? String == token)
        polling.send(SIGTERM)
        let (status, standardError) = try polling.waitForExit()
        #expect(status == 0, "stderr: \(standardError)")

        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("apn feedback polling with a missing certificate stops with status 1 and names the file")
    func pollingMissingCertificate() throws {
        let apn = try ApnProcess(["feedback", "--cert", "/nonexistent/c.pem", "--key", "/nonexistent/k.pem",
                                  "--address", "127.0.0.1:9"])
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 1)
        #expect(standardError.contains("/nonexistent/c.pem"))
    }

    @Test("apn feedback rejects contradictory options with status 2")
    func badOptions() throws {
        let apn = try ApnProcess(["feedback", "--once", "--interval", "60"])
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains("--interval and --once exclude each other"))
    }

    @Test("apn feedback --once with a missing certificate fails with status 1 and names the file")
    func missingCertificate() throws {
        let apn = try ApnProcess(["feedback", "--once", "--cert", "/nonexistent/c.pem", "--key", "/nonexistent/k.pem",
                                  "--address", "127.0.0.1:9"])
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 1)
        #expect(standardError.contains("/nonexistent/c.pem"))
    }
}
