import APNSupport
import APNTLS

extension ClientConnector.Settings {
    /// A gateway connection's: its host and port, `connectTimeout` (0 or `nil`: off),
    /// `disableNagle`, no ALPN.
    init(_ options: Connection.Options) {
        self.init(
            host: options.host, port: options.port, timeout: options.connectTimeout.turnedOffIfZero,
            noDelay: options.disableNagle, requiredProtocol: nil, threadName: "swift-apn.connection.connect")
    }
}

extension ConnectResult {
    /// An attempt's result as the connection's loop takes it: every failure an `APNError`.
    init(_ result: Result<Handoff<TLSConnection>, ClientConnector.Failure>) {
        switch result {
        case .success(let handoff): self = .connected(handoff)
        case .failure(.credentials(let error)): self = .failed(error)
        case .failure(.connect(let error)): self = .failed(APNError.connectFailure(error))
        case .failure(.protocolNotChosen(let required, let chosen)):
            self = .failed(APNError(code: .connectionFailed, message: "the server chose \(chosen ?? "no protocol"), not \(required)"))
        case .failure(.proxy(let error)):
            // The binary gateway is never reached through a proxy; a failure is told all the same.
            self = .failed(APNError(code: .connectionFailed, message: "\(error)"))
        case .failure(.threadNotStarted):
            self = .failed(APNError(code: .connectionFailed, message: ClientConnector.threadNotStartedMessage))
        }
    }
}

extension ClientConnector {
    /// What a failed attempt says when no thread could be started for it.
    static let threadNotStartedMessage = "no thread could be started for the connect attempt (the system's thread or memory limit)"
}
