internal import Glibc

/// Owns one non-blocking socket file descriptor and closes it in `deinit`.
final class Socket {
    private(set) var descriptor: Int32

    /// A new non-blocking, close-on-exec TCP socket for `family` (AF_INET or AF_INET6).
    init(family: Int32) throws(TLSError) {
        SignalPolicy.ignoreSIGPIPE()
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = Glibc.socket(family, type, 0)
        guard descriptor >= 0 else { throw TLSError(.connect, "creating a socket", errno: currentErrno) }
        self.descriptor = descriptor
    }

    /// Takes ownership of an accepted descriptor; call ``makeNonBlocking()`` next.
    init(accepted descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    /// Closes the descriptor now; later calls do nothing.
    func close() {
        if descriptor >= 0 {
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// Sets O_NONBLOCK and FD_CLOEXEC (accepted sockets do not inherit them on Linux).
    func makeNonBlocking() throws(TLSError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0,
            fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0
        else { throw TLSError(.accept, "making an accepted socket non-blocking", errno: currentErrno) }
    }

    /// Sets an integer socket option.
    func setOption(level: Int32, name: Int32, value: Int32, _ what: String) throws(TLSError) {
        var value = value
        guard setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw TLSError(.configuration, "setting \(what)", errno: currentErrno)
        }
    }

    /// Disables Nagle's algorithm so small frames leave at once.
    func setNoDelay(_ on: Bool) throws(TLSError) {
        try setOption(level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: on ? 1 : 0, "TCP_NODELAY")
    }

    /// Enables TCP keepalive probes.
    func setKeepAlive(_ on: Bool) throws(TLSError) {
        try setOption(level: SOL_SOCKET, name: SO_KEEPALIVE, value: on ? 1 : 0, "SO_KEEPALIVE")
    }

    /// Bytes written to the socket and not yet acknowledged by the peer (`SIOCOUTQ`, which
    /// Linux numbers as `TIOCOUTQ`); nil when closed or when the call fails.
    func unacknowledgedByteCount() -> Int? {
        guard descriptor >= 0 else { return nil }
        var count: Int32 = 0
        guard ioctl(descriptor, UInt(TIOCOUTQ), &count) == 0 else { return nil }
        return Int(count)
    }

    /// Ends the sending direction (`shutdown(2)` with `SHUT_WR`): the peer reads EOF after
    /// what was sent, and reading goes on.
    func shutdownWrite() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Closes with a TCP reset instead of a FIN (SO_LINGER with a zero timeout).
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    /// The pending error of a non-blocking connect (SO_ERROR), 0 when connected.
    func pendingError() -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return currentErrno }
        return value
    }
}

/// Process-wide signal settings the transport needs.
enum SignalPolicy {
    private static let sigpipeIgnored: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    /// Ignores SIGPIPE once for the process: OpenSSL writes with `write(2)`, which would
    /// otherwise kill the process when the peer has gone; the write fails with EPIPE instead.
    static func ignoreSIGPIPE() {
        _ = sigpipeIgnored
    }
}
