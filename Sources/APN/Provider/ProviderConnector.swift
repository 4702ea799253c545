import APNSupport
import APNTLS
import Foundation

/// Opens a provider's connections off its I/O thread: loads the TLS context once (ALPN
/// `h2`), then connects and handshakes on a short-lived thread per attempt and checks that
/// the server chose HTTP/2. The connect timeout runs on the provider's clock
/// (``ConnectAttempts``).
final class ProviderConnector: Sendable {
    private let host: String
    private let port: UInt16
    private let timeout: Duration
    private let context: ClientContextCache
    private let inbox: CommandInbox<ProviderCommand>
    private let attempts: ConnectAttempts

    init(options: Provider.Options, inbox: CommandInbox<ProviderCommand>) {
        self.attempts = ConnectAttempts(clock: options.clock)
        self.host = options.host
        self.port = options.port
        self.timeout = options.connectTimeout
        self.context = ClientContextCache(options.clientAccess, applicationProtocols: ["h2"], log: options.log)
        self.inbox = inbox
    }

    /// Starts attempt `attempt`; its result is posted to the inbox.
    func start(attempt: Int) {
        Thread.detachNewThread { [self] in
            inbox.post(.connectResult(attempt: attempt, connect()))
        }
    }

    /// Ends every attempt under way and any started later, at once: the loop has ended.
    func stop() {
        attempts.stop()
    }

    private func connect() -> ProviderConnectResult {
        let tlsContext: TLSClientContext
        switch context.load() {
        case .success(let loaded): tlsContext = loaded
        case .failure(let error): return .failed(ProviderError(code: .authentication, message: error.message))
        }
        let peer = "\(host):\(port)"
        let opened = attempts.run { attempt in
            // The TCP connect and the handshake together get `timeout`, on the provider's
            // clock, from one deadline taken before either: one taken between them could
            // miss a clock that moved meanwhile (a manual clock's advance then wakes the
            // handshake to a deadline still ahead).
            Result { () throws(TLSError) in
                let deadline = attempt.now() + timeout
                let connection = try TLSConnection.connect(
                    host: host, port: port, context: tlsContext, orSignal: attempt.wake,
                    plan: { attempt.plan(until: deadline) })
                try connection.handshake(orSignal: attempt.wake, plan: { attempt.plan(until: deadline) })
                return connection
            }
        }
        do throws(TLSError) {
            let connection = try opened.get()
            guard connection.applicationProtocol == "h2" else {
                connection.close()
                return .failed(
                    ProviderError(
                        code: .connectionFailed,
                        message: "\(peer) did not agree to HTTP/2 (ALPN h2); it chose \(connection.applicationProtocol ?? "nothing")"))
            }
            try connection.setKeepAlive(true)
            return .connected(Handoff(connection))
        } catch {
            return .failed(ProviderError(code: .connectionFailed, message: "connecting to \(peer): \(error)"))
        }
    }
}
