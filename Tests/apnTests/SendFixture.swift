import Foundation
import Testing
import APNTestSupport

/// A temporary directory with `apn certs` in `certs/` and an `apn mock-gateway` process
/// using them on an ephemeral loopback port, for the `apn send` tests.
final class SendFixture {
    let directory: String
    let certs: String
    let gateway: ApnProcess
    let address: String
    /// The HTTP/2 gateway's address, when started with `--http2`.
    let http2Address: String?
    /// The feedback service's address.
    let feedbackAddress: String?

    init(gatewayArguments: [String] = [], certsArguments: [String] = []) throws {
        directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        certs = (directory as NSString).appendingPathComponent("certs")
        #expect(try ApnProcess(["certs", certs] + certsArguments).waitForExit().status == 0)
        gateway = try ApnProcess(["mock-gateway", "--certs", certs] + gatewayArguments)
        let started = try jsonObject(try gateway.nextLine())
        address = try #require(started["gateway"] as? String)
        http2Address = started["http2"] as? String
        feedbackAddress = started["feedback"] as? String
    }

    /// `relative` inside the directory.
    func path(_ relative: String) -> String {
        (directory as NSString).appendingPathComponent(relative)
    }

    /// Writes `text` into the directory and returns the path.
    func file(_ name: String, _ text: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// Runs `apn send --certs … --address …` plus `arguments`: status, JSON lines, stderr.
    func send(_ arguments: [String], input: [UInt8]? = nil) throws -> (status: Int32, lines: [[String: Any]], standardError: String) {
        let apn = try ApnProcess(["send", "--certs", certs, "--address", address] + arguments, input: input)
        let (status, standardError) = try apn.waitForExit(timeout: 30)
        return (status, try apn.remainingLines().map(jsonObject), standardError)
    }

    /// Runs `apn send --http2 --ca … --address HTTP2` plus `arguments`: status, JSON lines, stderr.
    func sendHTTP2(
        _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (status: Int32, lines: [[String: Any]], standardError: String) {
        let address = try #require(http2Address, "the gateway was not started with --http2")
        let apn = try ApnProcess(
            ["send", "--http2", "--ca", (certs as NSString).appendingPathComponent("ca.pem"), "--address", address]
                + arguments, environment: environment)
        let (status, standardError) = try apn.waitForExit(timeout: 30)
        return (status, try apn.remainingLines().map(jsonObject), standardError)
    }

    /// Stops the gateway and returns its summary line.
    func stop() throws -> [String: Any] {
        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit().status == 0)
        return try jsonObject(try #require(try gateway.remainingLines().last))
    }

    deinit {
        if gateway.child.isRunning { gateway.send(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
