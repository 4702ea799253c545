import Foundation
import Glibc
import Testing
import APNTestSupport
import APNTestTraits

/// #42 items 2 and 3 for `apn feedback-service`: its flags from `--config FILE`, and SIGHUP
/// reads them and the credentials again — used from the next visit, or refused with one
/// log line while the old ones stay.
@Suite("apn feedback-service: --config and SIGHUP", .threadPerTest, .ownsChildProcesses)
struct ApnFeedbackServiceReloadTests {
    @Test("new credentials are used from the next visit; a configuration that does not load is refused")
    func reload() throws {
        let folder = try ApnTokensTests.Folder()
        let certs = try ApnFeedbackServiceTests.certificates(folder)
        let other = (folder.path as NSString).appendingPathComponent("other")
        #expect(try ApnProcess(["certs", other]).waitForExit().status == 0)
        let gateway = try ApnProcess(["mock-gateway", "--certs", certs])
        let address = try #require(try jsonObject(try gateway.nextLine())["feedback"] as? String)
        let config = try folder.file(
            "service.json", #"{"store": "\#(folder.store)", "certs": "\#(certs)", "address": "\#(address)", "interval": 1}"#)
        let service = try ApnProcess(["feedback-service", "--config", config])
        let first = try jsonObject(try service.nextLine())
        #expect(first["event"] as? String == "visit", "the flags came from the file: \(first)")

        // A client certificate the gateway's CA did not sign: the next visits fail with it.
        try #"{"store": "\#(folder.store)", "cert": "\#(other)/client.pem", "key": "\#(other)/client.key", "ca": "\#(certs)/ca.pem", "address": "\#(address)", "interval": 2}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        service.send(SIGHUP)
        #expect(service.waitForStandardError { $0.contains(#""event":"reloaded""#) })
        #expect(service.standardErrorSoFar.contains(#""needs_restart":["interval"]"#), "\(service.standardErrorSoFar)")
        var failed: [String: Any] = [:]
        while failed["event"] as? String != "visit_failed" { failed = try jsonObject(try service.nextLine()) }
        #expect((failed["error"] as? String)?.isEmpty == false, "the new certificate is used and refused")

        try #"{"store": "\#(folder.store)", "cert": "/nonexistent.pem", "address": "\#(address)"}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        service.send(SIGHUP)
        #expect(service.waitForStandardError { $0.contains(#""event":"reload_refused""#) })

        service.send(SIGTERM)
        let (status, standardError) = try service.waitForExit()
        #expect(status == 0, "\(standardError)")
        #expect(!standardError.contains("BEGIN"), "no key material logged")
        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit().status == 0)
    }
}
