import APNSupport
import APNTLS

extension ClientConnector.Settings {
    /// A provider connection's: its host and port, `connectTimeout`, `TCP_NODELAY`, the
    /// server must choose HTTP/2 (ALPN `h2`), and the proxy, if any.
    init(_ options: Provider.Options) {
        self.init(
            host: options.host, port: options.port, timeout: options.connectTimeout, noDelay: true,
            requiredProtocol: "h2", threadName: "swift-apn.provider.connect", proxy: options.proxy)
    }
}

extension ProviderConnectResult {
    /// An attempt's result as the provider's loop takes it: every failure a `ProviderError`,
    /// naming the peer.
    init(_ result: Result<Handoff<TLSConnection>, ClientConnector.Failure>, peer: String) {
        switch result {
        case .success(let handoff): self = .connected(handoff)
        case .failure(.credentials(let error)): self = .failed(ProviderError(code: .authentication, message: error.message))
        case .failure(.connect(let error)):
            self = .failed(ProviderError(code: .connectionFailed, message: "connecting to \(peer): \(error)"))
        case .failure(.protocolNotChosen(let required, let chosen)):
            self = .failed(
                ProviderError(
                    code: .connectionFailed,
                    message: "\(peer) did not agree to HTTP/2 (ALPN \(required)); it chose \(chosen ?? "nothing")"))
        case .failure(.proxy(let error)):
            self = .failed(ProviderError(code: .connectionFailed, message: "connecting to \(peer): \(error)"))
        case .failure(.threadNotStarted):
            self = .failed(ProviderError(code: .connectionFailed, message: "connecting to \(peer): \(ClientConnector.threadNotStartedMessage)"))
        }
    }
}
