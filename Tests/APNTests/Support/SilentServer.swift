import APNSupport
import APNTLS
import Foundation
import Glibc
import Synchronization

/// A plain TCP listener on 127.0.0.1 that accepts connections and never answers: a TLS
/// client hangs in its handshake. It counts the connections it accepted and the ones the
/// client closed (it reads, and discards, until EOF), with bounded waits. Call ``stop()``.
final class SilentServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let state = Lock((accepted: 0, closed: 0, sockets: [Int32]()))
    private let condition = NSCondition()

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var accepted: Int { state.withLock { $0.accepted } }
    var closed: Int { state.withLock { $0.closed } }

    /// Waits (at most 20 s) until `predicate` holds for (accepted, closed).
    func wait(until predicate: (_ accepted: Int, _ closed: Int) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 20)
        condition.lock()
        defer { condition.unlock() }
        while !state.withLock({ predicate($0.accepted, $0.closed) }) {
            if !condition.wait(until: deadline) { return state.withLock { predicate($0.accepted, $0.closed) } }
        }
        return true
    }

    /// Stops accepting and ends every connection (`shutdown(2)` wakes the blocked calls).
    func stop() {
        _ = Glibc.shutdown(listener, Int32(SHUT_RDWR))
        for socket in state.withLock({ $0.sockets }) { _ = Glibc.shutdown(socket, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let socket = accept(listener, nil, nil)
            guard socket >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(listener)
                return
            }
            change { $0.accepted += 1; $0.sockets.append(socket) }
            Thread.detachNewThread { [self] in drain(socket) }
        }
    }

    private func drain(_ socket: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            if count < 0 && errno == EINTR { continue }
            break
        }
        change { state in
            state.closed += 1
            state.sockets.removeAll { $0 == socket }
            close(socket)
        }
    }

    private func change(_ body: (inout (accepted: Int, closed: Int, sockets: [Int32])) -> Void) {
        state.withLock { body(&$0) }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }
}
