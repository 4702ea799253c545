import APNSupport
import APNTLS
import Foundation

/// Opens gateway sockets off the I/O thread: loads the credentials once (node-apn's
/// memoised credential promise), then connects and handshakes on a short-lived thread
/// per attempt, so a slow or unanswered attempt never stalls the sockets already open.
///
/// An attempt gives up at ``Connection/Options/connectTimeout`` on the connection's clock,
/// as the pool does (a ``ManualClock``'s advance wakes it), or when the loop ends
/// (``stop()``): no attempt's thread outlives its connection by more than a wake-up
/// (``ConnectAttempts``).
final class Connector: Sendable {
    private let options: Connection.Options
    private let context: ClientContextCache
    private let inbox: Inbox
    private let attempts: ConnectAttempts

    /// With `connectTimeout` off: the attempt's bound in real time, whatever the clock. No
    /// option asks for it: a safety net so that a peer that accepts and never answers the
    /// handshake cannot hold a thread (and a pool slot) forever — longer than any system's
    /// TCP connect timeout, and it only ends an attempt nothing else would.
    static let unboundedAttemptLimit: Duration = .seconds(600)

    init(options: Connection.Options, inbox: Inbox) {
        self.options = options
        self.context = ClientContextCache(options.access, log: options.log)
        self.inbox = inbox
        self.attempts = ConnectAttempts(clock: options.clock)
    }

    /// Starts attempt `attempt` for socket slot `slot`; its result is posted to the inbox.
    func start(slot: Int, attempt: Int) {
        Thread.detachNewThread { [self] in
            let result = connect()
            inbox.post(.connectResult(slot: slot, attempt: attempt, result))
        }
    }

    /// Ends every attempt under way and any started later, at once: the loop has ended.
    func stop() {
        attempts.stop()
    }

    private func connect() -> ConnectResult {
        let tlsContext: TLSClientContext
        switch context.load() {
        case .success(let loaded): tlsContext = loaded
        case .failure(let error): return .failed(error)
        }
        let result = attempts.run { attempt in
            // The same deadline as the session's, on the same clock: the session aborts the
            // attempt then, and the thread gives up with it.
            let deadline = options.connectTimeout.turnedOffIfZero.map { attempt.now() + $0 }
            let bound = deadline == nil ? ContinuousClock.now + Self.unboundedAttemptLimit : nil
            let plan = { attempt.plan(until: deadline, bound: bound) }
            return Result { () throws(TLSError) in
                let connection = try TLSConnection.connect(
                    host: options.host, port: options.port, context: tlsContext, noDelay: options.disableNagle,
                    orSignal: attempt.wake, plan: plan)
                try connection.handshake(orSignal: attempt.wake, plan: plan)
                try connection.setKeepAlive(true)
                return Handoff(connection)
            }
        }
        switch result {
        case .success(let handoff): return .connected(handoff)
        case .failure(let error): return .failed(APNError.connectFailure(error))
        }
    }
}
