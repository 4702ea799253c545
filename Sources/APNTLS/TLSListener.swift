package import APNSupport
internal import Glibc

/// A listening TCP socket that hands out server-side ``TLSConnection``s.
///
/// Not thread-safe: one thread accepts.
package final class TLSListener {
    private let socket: Socket
    private let context: TLSServerContextSlot
    /// The port actually bound (useful after binding port 0).
    package let port: UInt16
    /// The address bound, e.g. "127.0.0.1".
    package let host: String

    /// Binds and listens on `host:port` (by default 127.0.0.1 on a free port). With
    /// `receiveBuffer`, every accepted socket's kernel receive buffer is that many bytes
    /// (`SO_RCVBUF`, set before `listen` so the TCP window is sized from it): what the
    /// kernel holds for a client that the server has not read yet.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/listen`` with errno.
    package convenience init(
        context: TLSServerContext, host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 128,
        receiveBuffer: Int? = nil
    ) throws(TLSError) {
        try self.init(
            slot: TLSServerContextSlot(context), host: host, port: port, backlog: backlog, receiveBuffer: receiveBuffer)
    }

    /// Binds and listens as ``init(context:host:port:backlog:receiveBuffer:)``; each
    /// connection gets the context `slot` holds when it is accepted.
    package init(
        slot context: TLSServerContextSlot, host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 128,
        receiveBuffer: Int? = nil
    ) throws(TLSError) {
        let address = try AddressResolver.resolve(host: host, port: port, passive: true)[0]
        let socket = try Socket(family: address.family)
        try socket.setOption(level: SOL_SOCKET, name: SO_REUSEADDR, value: 1, "SO_REUSEADDR")
        if let receiveBuffer {
            try socket.setOption(level: SOL_SOCKET, name: SO_RCVBUF, value: Int32(clamping: receiveBuffer), "SO_RCVBUF")
        }
        guard address.withSockAddr({ bind(socket.descriptor, $0, $1) }) == 0 else {
            throw TLSError(.listen, "binding \(host):\(port)", errno: currentErrno)
        }
        guard listen(socket.descriptor, backlog) == 0 else {
            throw TLSError(.listen, "listening on \(host):\(port)", errno: currentErrno)
        }
        self.socket = socket
        self.context = context
        self.host = host
        self.port = try Self.boundPort(socket.descriptor)
    }

    /// The listening socket's descriptor, for callers that `poll()` it with other sockets.
    package var fileDescriptor: Int32 { socket.descriptor }

    /// Accepts one pending connection without waiting; `nil` when none is pending. The
    /// connection's handshake has not started.
    package func accept(noDelay: Bool = true) throws(TLSError) -> TLSConnection? {
        while true {
            let descriptor = Glibc.accept(socket.descriptor, nil, nil)
            if descriptor >= 0 {
                let accepted = Socket(accepted: descriptor)
                try accepted.makeNonBlocking()
                if noDelay { try accepted.setNoDelay(true) }
                return try TLSConnection(
                    context: context.current.handle, socket: accepted, isClient: false,
                    peerDescription: "client of \(host):\(port)")
            }
            let code = currentErrno
            if code == EINTR || code == ECONNABORTED { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw TLSError(.accept, "accepting on \(host):\(port)", errno: code)
        }
    }

    /// Accepts one connection, waiting with `poll()` until `deadline`.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/timeout`` when no client came in time.
    package func accept(deadline: ContinuousClock.Instant, noDelay: Bool = true) throws(TLSError) -> TLSConnection {
        while true {
            if let connection = try accept(noDelay: noDelay) { return connection }
            guard try Poller.wait(socket.descriptor, for: .readable, deadline: deadline) else {
                throw TLSError(.timeout, "accepting on \(host):\(port): no client before the deadline")
            }
        }
    }

    /// Accepts one connection, waiting with `poll()` until one comes, `signal` is raised
    /// (`nil` then; the signal is left raised) or `deadline` passes (`nil`: no deadline).
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/timeout`` when no client came in time.
    package func accept(
        deadline: ContinuousClock.Instant?, orSignal signal: WakeSignal, noDelay: Bool = true
    ) throws(TLSError) -> TLSConnection? {
        while true {
            if let connection = try accept(noDelay: noDelay) { return connection }
            switch try Poller.wait(socket.descriptor, events: Readiness.readable.pollEvents, deadline: deadline, orSignal: signal) {
            case .ready: continue
            case .signalled: return nil
            case .timedOut: throw TLSError(.timeout, "accepting on \(host):\(port): no client before the deadline")
            }
        }
    }

    /// Stops listening now (also done in `deinit`).
    package func close() {
        socket.close()
    }

    private static func boundPort(_ descriptor: Int32) throws(TLSError) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { throw TLSError(.listen, "reading the bound port", errno: currentErrno) }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }
}
