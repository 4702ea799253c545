import Foundation
import Glibc
import Testing

/// Plain TCP on loopback, below TLS, for the peers the tests play: one that accepts and
/// never answers a handshake, one that sends part of a record and then a byte at a time.
enum PlainSockets {
    /// A listening socket on 127.0.0.1 and its ephemeral port; nothing accepts unless asked,
    /// so a client's TCP connect completes (the backlog) and its TLS handshake waits.
    static func listen() throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && Glibc.listen(descriptor, 16) == 0, "bind/listen: errno \(errno)")
        return (descriptor, try port(of: descriptor))
    }

    /// A port nothing listens on: bound, read, closed.
    static func unusedPort() throws -> UInt16 {
        let (descriptor, port) = try listen()
        close(descriptor)
        return port
    }

    /// Accepts one connection, waiting up to `seconds` for it.
    static func accept(_ listener: Int32, seconds: Int32 = 30) throws -> Int32 {
        var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        try #require(poll(&ready, 1, seconds * 1000) == 1, "no client connected")
        let connection = Glibc.accept(listener, nil, nil)
        try #require(connection >= 0, "accept: errno \(errno)")
        return connection
    }

    /// A TCP connection to 127.0.0.1:`port`.
    static func connect(port: UInt16) throws -> Int32 {
        try #require(connectIfListening(port: port), "connect: errno \(errno)")
    }

    /// A TCP connection to 127.0.0.1:`port`, or nil (`errno` set) when none can be made:
    /// for a test that waits for a listener to be gone.
    static func connectIfListening(port: UInt16) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            errno = code
            return nil
        }
        return descriptor
    }

    /// Writes all of `bytes`.
    static func write(_ bytes: [UInt8], to descriptor: Int32) throws {
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        try #require(written == bytes.count, "write: \(written), errno \(errno)")
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func port(of descriptor: Int32) throws -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        try #require(named == 0)
        return UInt16(bigEndian: address.sin_port)
    }
}
