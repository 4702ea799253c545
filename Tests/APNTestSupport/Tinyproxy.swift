import Foundation
import Glibc

/// Debian's `tinyproxy` started by a test, its own instance (never the system's service on
/// 8888): a configuration file written in `directory`, on 127.0.0.1 and a free port,
/// allowing 127.0.0.1 and `CONNECT` to `connectPorts` only, optionally asking for a user
/// and password. It runs in the foreground (`-d`) as a ``ChildProcess`` of the test case,
/// so it is killed when the case ends; ``init(directory:connectPorts:credentials:)``
/// returns once its log says it accepts connections.
package struct Tinyproxy {
    /// Where Debian installs it.
    package static let path = "/usr/bin/tinyproxy"
    /// Whether it is installed: tests that need it are skipped with a note when not.
    package static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// The port it listens on (127.0.0.1).
    package let port: UInt16
    package let process: ChildProcess

    /// Starts it; throws when it exits, or says nothing of listening within 30 seconds.
    package init(directory: String, connectPorts: [UInt16], credentials: (user: String, password: String)? = nil) throws {
        var lastError = ""
        // A free port is found by binding 0 and closing; another process may take it in
        // between, so a start that fails to listen tries another (at most three).
        for _ in 0..<3 {
            let port = try Self.unusedPort()
            var lines = [
                "Port \(port)", "Listen 127.0.0.1", "Timeout 30", "MaxClients 20", "Allow 127.0.0.1", "LogLevel Info",
            ]
            lines += connectPorts.map { "ConnectPort \($0)" }
            if let credentials { lines.append("BasicAuth \(credentials.user) \(credentials.password)") }
            let configuration = (directory as NSString).appendingPathComponent("tinyproxy-\(port).conf")
            try (lines.joined(separator: "\n") + "\n").write(toFile: configuration, atomically: true, encoding: .utf8)
            let process = try ChildProcess(
                Self.path, arguments: ["-d", "-c", configuration], standardOutput: .pipe, standardError: .standardOutput)
            let (listening, log) = Self.waitUntilListening(process)
            if listening {
                self.port = port
                self.process = process
                return
            }
            process.kill()
            lastError = log
        }
        throw RawProxyError("tinyproxy did not start listening: \(lastError)")
    }

    /// Reads its log until "Accepting connections" (true) or its end (false), in 30 s at most.
    private static func waitUntilListening(_ process: ChildProcess) -> (Bool, String) {
        guard let output = process.standardOutput else { return (false, "no output") }
        let deadline = ContinuousClock.now + .seconds(30)
        var log: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var entry = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 1000) >= 0 else { continue }
            guard entry.revents != 0 else { continue }
            let count = read(output, &buffer, buffer.count)
            if count <= 0 { return (false, String(decoding: log, as: UTF8.self)) }
            log += buffer[..<count]
            if String(decoding: log, as: UTF8.self).contains("Accepting connections") {
                // Its log goes on; drained on a thread so that it never blocks on a full pipe.
                Thread.detachNewThread { _ = ChildProcess.readToEnd(output) }
                return (true, "")
            }
        }
        return (false, String(decoding: log, as: UTF8.self))
    }

    private static func unusedPort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawProxyError("socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw RawProxyError("bind: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }
}
