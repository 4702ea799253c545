import APNTLS
import Foundation
import Glibc
import Testing
import APNTestSupport
import APNTestTraits

/// A peer that sends part of a TLS record and then a byte every 200 ms must cost an `apn`
/// process almost no CPU: its waits used to count the partial record as readable and spin
/// a core (issue #25; the unit tests are Tests/APNTLSTests/PartialRecordTests.swift).
///
/// Each case reads the child's CPU time (utime + stime, /proc/PID/stat) across a window of
/// 1.8 s in which the test dribbles one byte every 200 ms — pacing, not synchronisation: the
/// record never completes, whatever the timing — and bounds it: a spin spends the whole
/// window, a process that polls a few milliseconds. CPU seconds are bounded, never wall
/// time, so a loaded machine passes; the child must still be alive at the end, so that its
/// own timeouts (set longer than the window) did not end the window early.
@Suite("apn: peers that dribble a TLS record", .threadPerTest, .ownsChildProcesses)
struct ApnDribbleTests {
    /// The start of a handshake record (type 22, length 122) and of its message.
    static let partialHandshake: [UInt8] = [0x16, 0x03, 0x03, 0x00, 0x7A, 0x02, 0x00]
    /// The start of a ClientHello record, as a client would send it.
    static let partialClientHello: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x7A, 0x01, 0x00]
    /// The header of a 64-byte application-data record and one byte of it.
    static let partialApplicationData: [UInt8] = [0x17, 0x03, 0x03, 0x00, 0x40, 0xAA]
    /// Ten clock ticks: a process that polls spends 0–0.01 s here; one spinning spent
    /// 0.25–1.1 s on the old code, even with every case spinning at once on two cores.
    static let cpuBound = 0.1
    static let token = String(repeating: "11", count: 32)

    // MARK: Client side: the test is the server

    enum Client: String, CaseIterable, Sendable {
        case send, sendHTTP2, feedback

        func arguments(certs: String, port: UInt16) -> [String] {
            let address = ["--certs", certs, "--address", "127.0.0.1:\(port)"]
            // --connect-timeout outlasts the window; feedback's own is 10 s.
            let sending = ["--token", ApnDribbleTests.token, "--alert", "Hi", "--connect-timeout", "30", "--retry-limit", "0"]
            switch self {
            case .send: return ["send"] + address + sending
            case .sendHTTP2: return ["send", "--http2"] + address + sending
            case .feedback: return ["feedback", "--once"] + address
            }
        }
    }

    @Test("a client in its handshake, the server dribbling a ServerHello record", arguments: Client.allCases)
    func clientHandshake(client: Client) throws {
        let certs = try Self.certificates()
        defer { try? FileManager.default.removeItem(atPath: certs) }
        let (listener, port) = try PlainSockets.listen()
        defer { close(listener) }
        let apn = try ApnProcess(client.arguments(certs: certs, port: port))
        let connection = try PlainSockets.accept(listener)
        defer { close(connection) }
        let cpu = try Self.dribble(Self.partialHandshake, to: apn) { try PlainSockets.write($0, to: connection) }
        print("dribble: \(client) in its handshake used \(cpu) s of CPU")
        #expect(cpu < Self.cpuBound, "\(client) spent \(cpu) s of CPU in the window")
    }

    @Test("a client after the handshake, the server dribbling an application-data record", arguments: [Client.send, .feedback])
    func clientDataPhase(client: Client) throws {
        let certs = try Self.certificates()
        defer { try? FileManager.default.removeItem(atPath: certs) }
        let context = try TLSServerContext(
            credentials: TLSCredentials(certificateFile: Self.file(certs, "server.pem"), keyFile: Self.file(certs, "server.key")),
            clientCertificateAuthorities: TLSCertificate.certificates(fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: Self.file(certs, "ca.pem"))))))
        let listener = try TLSListener(context: context)
        let apn = try ApnProcess(client.arguments(certs: certs, port: listener.port))
        let connection = try listener.accept(deadline: .now + .seconds(30))
        defer { connection.close() }
        try connection.handshake(deadline: .now + .seconds(30))
        let cpu = try Self.dribble(Self.partialApplicationData, to: apn) {
            try PlainSockets.write($0, to: connection.fileDescriptor)
        }
        print("dribble: \(client) after its handshake used \(cpu) s of CPU")
        #expect(cpu < Self.cpuBound, "\(client) spent \(cpu) s of CPU in the window")
    }

    // MARK: Server side: the test is the client of `apn mock-gateway`

    enum Port: String, CaseIterable, Sendable {
        case gateway, feedback, http2
    }

    @Test("apn mock-gateway, a client dribbling its ClientHello", arguments: Port.allCases)
    func serverHandshake(port: Port) throws {
        let fixture = try SendFixture(gatewayArguments: port == .http2 ? ["--http2"] : [])
        let started = try Self.port(of: port, fixture)
        let connection = try PlainSockets.connect(port: started)
        defer { close(connection) }
        let cpu = try Self.dribble(Self.partialClientHello, to: fixture.gateway) { try PlainSockets.write($0, to: connection) }
        print("dribble: mock-gateway's \(port) port, a ClientHello dribbled, used \(cpu) s of CPU")
        #expect(cpu < Self.cpuBound, "the mock gateway spent \(cpu) s of CPU in the window")
    }

    @Test("apn mock-gateway's gateway port after the handshake, a client dribbling an application-data record")
    func serverDataPhase() throws {
        let fixture = try SendFixture()
        let context = try TLSClientContext(
            trustedCertificates: TLSCertificate.certificates(
                fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: Self.file(fixture.certs, "ca.pem"))))),
            credentials: TLSCredentials(
                certificateFile: Self.file(fixture.certs, "client.pem"), keyFile: Self.file(fixture.certs, "client.key")))
        let connection = try TLSConnection.connect(
            host: "127.0.0.1", port: try Self.port(of: .gateway, fixture), context: context, timeout: .seconds(30))
        defer { connection.close() }
        try connection.handshake(deadline: .now + .seconds(30))
        let cpu = try Self.dribble(Self.partialApplicationData, to: fixture.gateway) {
            try PlainSockets.write($0, to: connection.fileDescriptor)
        }
        print("dribble: mock-gateway's gateway port after the handshake used \(cpu) s of CPU")
        #expect(cpu < Self.cpuBound, "the mock gateway spent \(cpu) s of CPU in the window")
    }

    // MARK: Helpers

    /// Writes `start`, then one more byte every 200 ms, nine times; returns the CPU seconds
    /// `process` spent from the first write to the last, and checks it is still running.
    static func dribble(_ start: [UInt8], to process: ApnProcess, write: ([UInt8]) throws -> Void) throws -> Double {
        let pid = process.pid
        try write(start)
        let before = try cpuSeconds(pid)
        for _ in 0..<9 {
            Thread.sleep(forTimeInterval: 0.2)  // pacing the dribble, not waiting for anything
            try write([0xAA])
        }
        let used = try cpuSeconds(pid) - before
        try #require(process.child.isRunning, "the child ended within the window")
        return used
    }

    /// The CPU time (user and system) process `pid` has used, from /proc/PID/stat.
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name, which is in parentheses and may hold spaces:
        // state is field 3, utime 14, stime 15.
        let close = try #require(stat.lastIndex(of: ")"))
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let utime = try #require(Double(fields[11]))
        let stime = try #require(Double(fields[12]))
        return (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func certificates() throws -> String {
        let certs = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
        #expect(try ApnProcess(["certs", certs]).waitForExit().status == 0)
        return certs
    }

    static func file(_ directory: String, _ name: String) -> String {
        (directory as NSString).appendingPathComponent(name)
    }

    static func port(of port: Port, _ fixture: SendFixture) throws -> UInt16 {
        let address: String
        switch port {
        case .gateway: address = fixture.address
        case .http2: address = try #require(fixture.http2Address)
        case .feedback: address = try #require(fixture.feedbackAddress)
        }
        let text = try #require(address.split(separator: ":").last)
        return try #require(UInt16(text))
    }
}
