import Foundation
import Testing
import APNTestSupport
import APNTestTraits

@Suite("apn demo", .threadPerTest, .ownsChildProcesses)
struct ApnDemoTests {
    @Test("apn demo --json tells the story, checks every outcome and exits 0")
    func demoJSON() throws {
        let apn = try ApnProcess(["demo", "--json"])
        let (status, standardError) = try apn.waitForExit(timeout: 60)
        let lines = try apn.remainingLines().map(jsonObject)
        #expect(status == 0, "\(standardError)")
        let steps = lines.compactMap { $0["step"] as? String }
        #expect(steps.first == "certs")
        for step in ["gateway", "send", "errorCallback", "event", "report", "not_accepted", "check", "feedback"] {
            #expect(steps.contains(step), "no \(step) step")
        }
        let report = try #require(lines.first { $0["step"] as? String == "report" })
        #expect(report["rejected"] as? Int == 1)
        #expect((report["accepted"] as? Int ?? 0) + (report["unknown_fate"] as? Int ?? 0) == 9_999)
        let check = try #require(lines.first { $0["step"] as? String == "check" })
        #expect(check["holds"] as? Bool == true)
        #expect(lines.filter { $0["step"] as? String == "feedback_entry" }.count == 3)
        #expect(lines.last?["ok"] as? Bool == true)
        let directory = try #require(lines.first?["dir"] as? String)
        #expect(!FileManager.default.fileExists(atPath: directory), "the temporary directory is left behind")
    }

    @Test("apn demo in text prints the report and the verdict")
    func demoText() throws {
        let apn = try ApnProcess(["demo", "--count", "200"])
        let (status, standardError) = try apn.waitForExit(timeout: 60)
        let text = try apn.remainingLines().joined(separator: "\n")
        #expect(status == 0, "\(standardError)")
        #expect(text.contains("errorCallback(8 (invalid token)"))
        #expect(text.contains("Delivery report: accepted"))
        #expect(text.contains("every outcome agrees with the gateway's record"))
    }

    @Test("apn demo refuses an unknown flag and a count out of range with status 2")
    func badOptions() throws {
        for arguments in [["demo", "--bogus"], ["demo", "--count", "3"]] {
            let (status, standardError) = try ApnProcess(arguments).waitForExit()
            #expect(status == 2)
            #expect(standardError.contains("apn demo:"))
        }
    }
}
