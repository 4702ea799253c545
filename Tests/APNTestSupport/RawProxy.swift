import APNSupport
import Dispatch
import Glibc
import Synchronization

/// A tiny HTTP proxy a test plays, on 127.0.0.1 and an ephemeral port: it reads each
/// client's `CONNECT` head (kept, byte for byte, in ``requests``), then answers as
/// scripted — a refusal, a tunnel it relays to the target the request names, garbage, or
/// nothing at all — to prove what a client writes and how it takes each answer.
///
/// A thread accepts, a thread per connection serves; every wait is a `poll()` beside the
/// stop signal, and ``stop()`` returns once every thread has finished.
package final class RawProxy: Sendable {
    /// What the proxy does once it has read a `CONNECT` head.
    package enum Behaviour: Sendable {
        /// Writes these bytes (a whole answer) and closes.
        case answer(String)
        /// Writes `head` (a 2xx answer), connects to the request's target and relays both ways.
        case tunnel(head: String)
        /// Writes these bytes and keeps the connection open, reading nothing more.
        case answerAndHold([UInt8])
        /// Answers nothing and keeps the connection open.
        case silent
    }

    /// The port it listens on.
    package let port: UInt16
    private let listener: Int32
    private let behaviour: Behaviour
    private let stopSignal: WakeSignal
    private let received = Mutex<[[UInt8]]>([])
    private let running = DispatchGroup()

    /// Listens and starts accepting.
    package init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        stopSignal = try WakeSignal()
        (listener, port) = try Self.listen()
        running.enter()
        guard ThreadStarter.system.start("raw-proxy-accept", { [self] in acceptLoop() }) else {
            running.leave()
            throw RawProxyError("no thread for the accept loop")
        }
    }

    /// The `CONNECT` heads received so far, each up to and including its empty line.
    package var requests: [[UInt8]] { received.withLock { $0 } }

    /// Stops accepting and serving, and waits for every thread.
    package func stop() {
        stopSignal.signal()
        running.wait()
        close(listener)
    }

    private func acceptLoop() {
        defer { running.leave() }
        while wait(listener, events: Int16(POLLIN)) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            running.enter()
            if !ThreadStarter.system.start("raw-proxy-conn", { [self] in serve(client) }) {
                close(client)
                running.leave()
            }
        }
    }

    private func serve(_ client: Int32) {
        defer {
            close(client)
            running.leave()
        }
        guard let head = readHead(client) else { return }
        received.withLock { $0.append(head) }
        switch behaviour {
        case .answer(let text):
            _ = Self.write(Array(text.utf8), to: client)
        case .answerAndHold(let bytes):
            _ = Self.write(bytes, to: client)
            _ = wait(client, events: 0)
        case .silent:
            _ = wait(client, events: 0)
        case .tunnel(let answer):
            guard let target = Self.targetPort(head), let upstream = Self.connect(port: target) else { return }
            defer { close(upstream) }
            guard Self.write(Array(answer.utf8), to: client) else { return }
            relay(client, upstream)
        }
    }

    /// Reads byte by byte up to the empty line, so that nothing of the tunnel is taken.
    private func readHead(_ descriptor: Int32) -> [UInt8]? {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            guard head.count < 65_536, wait(descriptor, events: Int16(POLLIN)), read(descriptor, &byte, 1) == 1 else {
                return nil
            }
            head.append(byte)
        }
        return head
    }

    private func relay(_ first: Int32, _ second: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var entries = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopSignal.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        while poll(&entries, 3, -1) >= 0, entries[2].revents == 0 {
            for (from, to) in [(0, 1), (1, 0)] where entries[from].revents != 0 {
                let count = read(entries[from].fd, &buffer, buffer.count)
                guard count > 0, Self.write(Array(buffer[..<count]), to: entries[to].fd) else { return }
            }
        }
    }

    /// Waits until `descriptor` has `events` (none: until it fails or closes) or the stop
    /// signal is raised; false when stopped.
    private func wait(_ descriptor: Int32, events: Int16) -> Bool {
        var entries = [
            pollfd(fd: descriptor, events: events, revents: 0),
            pollfd(fd: stopSignal.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let result = poll(&entries, 2, -1)
            if result < 0 && errno == EINTR { continue }
            return result > 0 && entries[1].revents == 0
        }
    }

    /// Writes all of `bytes` (blocking; the socket is); false once the peer has gone.
    private static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }

    /// The port of `CONNECT 127.0.0.1:PORT HTTP/1.1`.
    private static func targetPort(_ head: [UInt8]) -> UInt16? {
        let line = String(decoding: head.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "CONNECT", let colon = parts[1].lastIndex(of: ":") else { return nil }
        return UInt16(parts[1][parts[1].index(after: colon)...])
    }

    private static func listen() throws -> (Int32, UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw RawProxyError("socket: errno \(errno)") }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && Glibc.listen(descriptor, 16) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw RawProxyError("bind/listen: errno \(errno)")
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    private static func connect(port: UInt16) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// The raw proxy could not start.
package struct RawProxyError: Error, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}
