import APNSupport
import APNTLS

/// Opens an HTTP `CONNECT` tunnel on a TCP connection to a proxy, before TLS starts: writes
/// the request (``ProxyConnectRequest``), reads the answer's head
/// (``ProxyResponseHeadDecoder``, at most its limit) and requires 2xx. Every wait is the
/// attempt's (`plan`), so a proxy that never answers, or answers a byte at a time for
/// ever, is given up at the attempt's deadline, and one that answers without end at the
/// head's limit.
enum ProxyTunnel {
    static func open(
        _ connection: TLSConnection, to host: String, port: UInt16, through proxy: HTTPProxy,
        orSignal wake: WakeSignal, plan: () -> WaitPlan
    ) throws(ProxyTunnelError) {
        func failure(_ kind: ProxyTunnelError.Kind) -> ProxyTunnelError {
            ProxyTunnelError(kind, proxy: proxy, host: host, port: port)
        }
        guard let authority = ProxyConnectRequest.authority(host: host, port: port) else { throw failure(.invalidOrigin) }
        var decoder = ProxyResponseHeadDecoder()
        var received = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { buffer.deallocate() }
        do throws(TLSError) {
            try connection.writePreamble(ProxyConnectRequest.bytes(authority: authority, proxy: proxy), orSignal: wake, plan: plan)
        } catch {
            throw failure(.transport(error))
        }
        while true {
            let count: Int
            do throws(TLSError) {
                count = try connection.readPreamble(into: buffer, orSignal: wake, plan: plan)
            } catch {
                throw failure(.transport(error))
            }
            guard count > 0 else { throw failure(.closed(received: received)) }
            received += count
            switch decoder.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count])) {
            case .needMore:
                continue
            case .failed(let why):
                throw failure(.unreadable(why))
            case .complete(let head, let trailing):
                guard head.opensTunnel else { throw failure(.refused(head)) }
                guard trailing == 0 else { throw failure(.bytesAfterAnswer(trailing)) }
                connection.describePeer(as: "\(authority) through the proxy \(proxy.address)")
                return
            }
        }
    }
}
