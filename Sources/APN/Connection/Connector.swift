import APNTLS
import Foundation
import APNWire // PThreadMutex in TSan builds
import Synchronization

/// Opens gateway sockets off the I/O thread: loads the credentials once (node-apn's
/// memoised credential promise), then connects and handshakes on a short-lived thread
/// per attempt, so a slow or unanswered attempt never stalls the sockets already open.
final class Connector: Sendable {
    private let options: Connection.Options
    private let context = Mutex<Result<TLSClientContext, APNError>?>(nil)
    private let inbox: Inbox

    init(options: Connection.Options, inbox: Inbox) {
        self.options = options
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
        let context: TLSClientContext
        switch loadContext() {
        case .success(let loaded): context = loaded
        case .failure(let error): return .failed(error)
        }
        // The attempt's own bound; the session aborts earlier by `connectTimeout` anyway.
        let timeout = options.connectTimeout ?? .seconds(600)
        let deadline = ContinuousClock.now + timeout
        do throws(TLSError) {
            let connection = try TLSConnection.connect(
                host: options.host, port: options.port, context: context, timeout: timeout,
                noDelay: options.disableNagle)
            try connection.handshake(deadline: deadline)
            try connection.setKeepAlive(true)
            return .connected(ConnectionHandoff(connection))
        } catch {
            return .failed(APNError(code: error.kind == .timeout ? .connectTimeout : .connectionFailed, message: "\(error)"))
        }
    }

    private func loadContext() -> Result<TLSClientContext, APNError> {
        context.withLock { cached in
            if let cached { return cached }
            let result = Result { () throws(APNError) in try ClientContextLoader.load(options) }
            cached = result
            return result
        }
    }
}
