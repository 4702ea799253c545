package import APNSupport
internal import COpenSSL
internal import Glibc

extension TLSConnection {
    /// Opens a TCP connection to `host` (every address `getaddrinfo` returns, IPv4 or IPv6,
    /// in order) and prepares the client side of TLS. The handshake has not started:
    /// call ``handshake()`` or ``handshake(deadline:)``.
    ///
    /// - Parameters:
    ///   - serverName: the name the server's certificate must carry and the SNI sent;
    ///     `host` by default. IP literals are checked against IP SANs and sent no SNI.
    ///   - timeout: for the TCP connection (all addresses together).
    ///   - noDelay: set TCP_NODELAY (default `true`: frames leave as soon as written).
    /// - Throws: ``TLSError/Kind-swift.struct/connect`` (with errno) or
    ///   ``TLSError/Kind-swift.struct/timeout``.
    package static func connect(
        host: String,
        port: UInt16,
        context: TLSClientContext,
        serverName: String? = nil,
        timeout: Duration = .seconds(10),
        noDelay: Bool = true
    ) throws(TLSError) -> TLSConnection {
        let deadline = ContinuousClock.now + timeout
        return try connect(host: host, port: port, context: context, serverName: serverName, noDelay: noDelay) {
            descriptor, peer throws(TLSError) in
            guard try Poller.wait(descriptor, for: .writable, deadline: deadline) else {
                throw TLSError(.timeout, "connecting to \(peer): no answer before the deadline")
            }
        }
    }

    /// ``connect(host:port:context:serverName:timeout:noDelay:)`` whose TCP connect waits
    /// with `poll()` on the socket and `signal` for as long as `plan` says, asked before
    /// each wait and after each wake-up: a thread another thread can stop, or whose
    /// deadline lives on another clock. `plan` resets the signal if it wants to.
    ///
    /// - Throws: as the other `connect`; ``TLSError/Kind-swift.struct/timeout`` when `plan`
    ///   gives up.
    package static func connect(
        host: String, port: UInt16, context: TLSClientContext, serverName: String? = nil, noDelay: Bool = true,
        orSignal signal: WakeSignal, plan: () -> WaitPlan
    ) throws(TLSError) -> TLSConnection {
        try connect(host: host, port: port, context: context, serverName: serverName, noDelay: noDelay) {
            descriptor, peer throws(TLSError) in
            guard try Poller.wait(descriptor, events: Readiness.writable.pollEvents, orSignal: signal, plan: plan) else {
                throw TLSError(.timeout, "connecting to \(peer): gave up waiting")
            }
        }
    }

    /// Connects to each address in turn; `waitForConnect` waits until the socket's connect
    /// finished, or throws (a ``TLSError/Kind-swift.struct/timeout`` ends the attempts).
    private static func connect(
        host: String, port: UInt16, context: TLSClientContext, serverName: String?, noDelay: Bool,
        waitForConnect: (_ descriptor: Int32, _ peer: String) throws(TLSError) -> Void
    ) throws(TLSError) -> TLSConnection {
        let peer = "\(host):\(port)"
        var lastError = TLSError(.connect, "connecting to \(peer): no address tried")
        for address in try AddressResolver.resolve(host: host, port: port) {
            do {
                let socket = try openSocket(to: address, peer: peer, waitForConnect: waitForConnect)
                if noDelay { try socket.setNoDelay(true) }
                let connection = try TLSConnection(
                    context: context.handle, socket: socket, isClient: true, peerDescription: peer)
                try connection.expectServer(named: serverName ?? host, verifying: context.verifiesPeer)
                return connection
            } catch where error.kind == .timeout {
                throw error
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private static func openSocket(
        to address: ResolvedAddress, peer: String,
        waitForConnect: (_ descriptor: Int32, _ peer: String) throws(TLSError) -> Void
    ) throws(TLSError) -> Socket {
        let socket = try Socket(family: address.family)
        let result = address.withSockAddr { Glibc.connect(socket.descriptor, $0, $1) }
        if result == 0 { return socket }
        let code = currentErrno
        guard code == EINPROGRESS || code == EINTR else {
            throw TLSError(.connect, "connecting to \(peer)", errno: code)
        }
        try waitForConnect(socket.descriptor, peer)
        let pending = socket.pendingError()
        guard pending == 0 else { throw TLSError(.connect, "connecting to \(peer)", errno: pending) }
        return socket
    }

    /// Sends SNI and tells OpenSSL which name (or IP) the server's certificate must carry.
    private func expectServer(named name: String, verifying: Bool) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        let isIP = AddressResolver.isIPAddress(name)
        if !isIP {
            guard capn_SSL_set_tlsext_host_name(ssl, name) == 1 else {
                throw .openSSL(.configuration, "setting SNI \(name)")
            }
        }
        guard verifying else { return }
        let ok =
            isIP
            ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1
            : SSL_set1_host(ssl, name) == 1
        guard ok else { throw .openSSL(.configuration, "expecting the server name \(name)") }
    }
}
