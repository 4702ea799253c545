import APN
import APNTLS
import Foundation
import APNMockGateway
import Glibc
import APNTestSupport

/// A MockGateway in a process of its own (this executable, `send --only gateway-process`),
/// so that a memory figure counts the connection alone, not the gateway's records of what
/// it received. The parent writes the certificates, starts the child, and reads its
/// announcements: `port N` once listening, `recorded` once it has recorded the count it
/// was given. The child stops when its standard input closes.
final class GatewayProcess {
    private let child: ChildProcess
    private var buffered: [UInt8] = []
    private let directory: URL
    /// The gateway's port on 127.0.0.1.
    private(set) var port: UInt16 = 0
    private let clientCertificate: [UInt8]
    private let clientKey: [UInt8]
    private let caCertificate: [UInt8]

    /// Starts a gateway process that announces `recorded` after `count` notifications.
    init(recordsBeforeAnnouncing count: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("apn-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let authority = try CertificateAuthority(commonName: "apn-bench CA")
        let server = try authority.issueServerCertificate()
        let client = try authority.issueClientCertificate(topic: "com.example.bench")
        try Data(try authority.certificate.pem().utf8).write(to: directory.appendingPathComponent("ca.pem"))
        try Data(try server.certificate.pem().utf8).write(to: directory.appendingPathComponent("server.pem"))
        try Data(try server.privateKey.pem().utf8).write(to: directory.appendingPathComponent("server.key"))
        clientCertificate = Array(try client.certificate.pem().utf8)
        clientKey = Array(try client.privateKey.pem().utf8)
        caCertificate = Array(try authority.certificate.pem().utf8)

        // Started by the tests' spawner, not Foundation's `Process` (its `run()` crashed once, #39).
        child = try ChildProcess(
            CommandLine.arguments[0], arguments: ["send", "--only", "gateway-process", "--operations", "\(count)", "--rounds", "1"],
            environment: ChildProcess.environment(adding: ["APN_BENCH_CERTS": directory.path]),
            standardInput: .pipe, standardError: .inherit)
        let announcement = try nextLine()
        guard announcement.hasPrefix("port "), let port = UInt16(announcement.dropFirst(5)) else {
            throw BenchUsageError(description: "the gateway process said \"\(announcement)\"")
        }
        self.port = port
    }

    /// Connection options for this gateway.
    func options() -> Connection.Options {
        var options = Connection.Options()
        options.address = "127.0.0.1"
        options.port = port
        options.cert = .data(clientCertificate)
        options.key = .data(clientKey)
        options.ca = [.data(caCertificate)]
        return options
    }

    /// The child's next line (blocking).
    func nextLine() throws -> String {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(child.standardOutput!, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchUsageError(description: "the gateway process ended") }
            buffered += chunk[..<count]
        }
    }

    /// Stops the child and removes the certificates.
    func stop() {
        close(child.standardInput!)
        _ = child.waitForExit(timeout: .seconds(600))
        close(child.standardOutput!)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The child's side: a gateway with the parent's certificates.
    static func serve(announcingAfter count: Int) throws {
        guard let path = ProcessInfo.processInfo.environment["APN_BENCH_CERTS"] else {
            throw BenchUsageError(description: "gateway-process is started by the memory scenario, not by hand")
        }
        let file = { (name: String) in (path as NSString).appendingPathComponent(name) }
        var configuration = MockGateway.Configuration()
        configuration.serverCredentials = try TLSCredentials(certificateFile: file("server.pem"), keyFile: file("server.key"))
        configuration.clientCertificateAuthorities = try TLSCertificate.certificates(
            fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: file("ca.pem")))))
        let gateway = try MockGateway(configuration: configuration)
        try gateway.start()
        // Written straight to the descriptor: print's buffer would hold the lines back.
        FileHandle.standardOutput.write(Data("port \(gateway.gatewayPort)\n".utf8))
        if gateway.waitForRecords(count: count, timeout: .seconds(600)) {
            FileHandle.standardOutput.write(Data("recorded\n".utf8))
        }
        _ = FileHandle.standardInput.readDataToEndOfFile()
        gateway.stop()
    }
}
