import APNTLS
import Foundation

/// Opens gateway sockets off the I/O thread: loads the credentials once (node-apn's
/// memoised credential promise), then connects and handshakes on a short-lived thread
/// per attempt, so a slow or unanswered attempt never stalls the sockets already open.
final class Connector: Sendable {
    private let options: Connection.Options
    private let context: ClientContextCache
    private let inbox: Inbox

    init(options: Connection.Options, inbox: Inbox) {
        self.options = options
        self.context = ClientContextCache(options.access)
        self.inbox = inbox
    }

    /// Starts attempt `attempt` for socket slot `slot`; its result is posted to the inbox.
    func start(slot: Int, attempt: Int) {
        Thread.detachNewThread { [self] in
            let result = connect()
            inbox.post(.connectResult(slot: slot, attempt: attempt, result))
        }
    }

    private func connect() -> ConnectResult {
        let tlsContext: TLSClientContext
        switch context.load() {
        case .success(let loaded): tlsContext = loaded
        case .failure(let error): return .failed(error)
        }
        // The attempt's own bound; the session aborts earlier by `connectTimeout` anyway.
        let timeout = options.connectTimeout.turnedOffIfZero ?? .seconds(600)
        let deadline = ContinuousClock.now + timeout
        do throws(TLSError) {
            let connection = try TLSConnection.connect(
                host: options.host, port: options.port, context: tlsContext, timeout: timeout,
                noDelay: options.disableNagle)
            try connection.handshake(deadline: deadline)
            try connection.setKeepAlive(true)
            return .connected(Handoff(connection))
        } catch {
            return .failed(APNError.connectFailure(error))
        }
    }
}
