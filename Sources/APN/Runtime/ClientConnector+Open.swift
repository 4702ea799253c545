import APNSupport
import APNTLS

extension ClientConnector {
    /// The TCP connect, the proxy's tunnel when there is one, and the TLS handshake, all
    /// waiting as `plan` says (one deadline for the three). Through a proxy the TCP
    /// connection goes to the proxy, but SNI and the certificate's check are the origin's
    /// (``Settings/host``): the proxy only relays bytes it cannot read.
    static func open(
        _ settings: Settings, context: TLSClientContext, wake: WakeSignal, plan: () -> WaitPlan
    ) -> Result<TLSConnection, Failure> {
        let connection: TLSConnection
        do throws(TLSError) {
            connection = try TLSConnection.connect(
                host: settings.proxy?.host ?? settings.host, port: settings.proxy?.port ?? settings.port,
                context: context, serverName: settings.host, noDelay: settings.noDelay, orSignal: wake, plan: plan)
        } catch {
            guard let proxy = settings.proxy else { return .failure(.connect(error)) }
            return .failure(.proxy(ProxyTunnelError(.unreachable(error), proxy: proxy, host: settings.host, port: settings.port)))
        }
        if let proxy = settings.proxy {
            do throws(ProxyTunnelError) {
                try ProxyTunnel.open(connection, to: settings.host, port: settings.port, through: proxy, orSignal: wake, plan: plan)
            } catch {
                connection.close()
                return .failure(.proxy(error))
            }
        }
        do throws(TLSError) {
            try connection.handshake(orSignal: wake, plan: plan)
        } catch {
            connection.close()
            return .failure(.connect(error))
        }
        return .success(connection)
    }
}
