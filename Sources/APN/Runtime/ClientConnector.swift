import APNSupport
import APNTLS

/// Opens a client's TLS sockets off its I/O thread, for both protocols: loads the
/// credentials once (node-apn's memoised credential promise), then connects and handshakes
/// on a short-lived thread per attempt, so a slow or unanswered attempt never stalls the
/// sockets already open. The binary gateway and feedback clients and the HTTP/2 provider
/// differ only in their ``Settings``: the ALPN protocol the server must choose, Nagle, the
/// timeout.
///
/// An attempt gives up at its timeout on the client's clock (a ``ManualClock``'s advance
/// wakes it), or when the loop ends (``stop()``): no attempt's thread outlives its client by
/// more than a wake-up (``ConnectAttempts``). A thread that cannot start fails its attempt
/// at once (``Failure/threadNotStarted``): the loop hears of it as of any other failure
/// and never waits for an answer that cannot come.
final class ClientConnector: Sendable {
    /// Where and how to connect.
    struct Settings: Sendable {
        /// The server's host and port.
        var host: String
        var port: UInt16
        /// The connect and the handshake together, from one deadline on the client's clock;
        /// `nil`: no timeout but ``unboundedAttemptLimit`` in real time.
        var timeout: Duration?
        /// `TCP_NODELAY`.
        var noDelay: Bool
        /// The ALPN protocol the server must choose (`h2`), or `nil` for none.
        var requiredProtocol: String?
        /// The name threads of attempts carry.
        var threadName: String
        /// The HTTP proxy the TCP connection goes to, and through whose `CONNECT` tunnel
        /// the TLS session with ``host`` runs; `nil`: straight to ``host``.
        var proxy: HTTPProxy? = nil
    }

    /// Why an attempt opened no socket.
    enum Failure: Error, Sendable {
        /// The credentials could not be loaded (or the TLS context made from them).
        case credentials(APNError)
        /// The TCP connect or the TLS handshake failed, or the timeout passed.
        case connect(TLSError)
        /// The server chose another application protocol (or none) than ``Settings/requiredProtocol``.
        case protocolNotChosen(required: String, chosen: String?)
        /// The proxy of ``Settings/proxy`` opened no tunnel: it refused `CONNECT`, answered
        /// something unreadable, closed, or did not answer in time.
        case proxy(ProxyTunnelError)
        /// No thread could be started for the attempt (the system's thread or memory limit).
        case threadNotStarted
    }

    /// With no timeout: the attempt's bound in real time, whatever the clock. No option asks
    /// for it: a safety net so that a peer that accepts and never answers the handshake
    /// cannot hold a thread (and a pool slot) forever — longer than any system's TCP connect
    /// timeout, and it only ends an attempt nothing else would.
    static let unboundedAttemptLimit: Duration = .seconds(600)

    private let settings: Settings
    private let context: ClientContextCache
    private let attempts: ConnectAttempts
    private let threads: ThreadStarter

    init(_ settings: Settings, access: ServiceAccess, log: ComponentLog, clock: ConnectionClock, threads: ThreadStarter) {
        self.settings = settings
        self.context = ClientContextCache(
            access, applicationProtocols: settings.requiredProtocol.map { [$0] } ?? [], log: log)
        self.attempts = ConnectAttempts(clock: clock)
        self.threads = threads
    }

    /// Starts an attempt; `finished` gets its result, on the attempt's thread, or at once on
    /// this one when no thread could be started.
    func start(_ finished: @escaping @Sendable (Result<Handoff<TLSConnection>, Failure>) -> Void) {
        let started = threads.start(settings.threadName) { [self] in
            finished(connect())
        }
        if !started { finished(.failure(.threadNotStarted)) }
    }

    /// Connections opened from now on use `context` (credentials reloaded); those open
    /// keep theirs.
    func replaceContext(_ context: TLSClientContext) {
        self.context.replace(with: context)
    }

    /// Ends every attempt under way and any started later, at once: the loop has ended.
    func stop() {
        attempts.stop()
    }

    private func connect() -> Result<Handoff<TLSConnection>, Failure> {
        let tlsContext: TLSClientContext
        switch context.load() {
        case .success(let loaded): tlsContext = loaded
        case .failure(let error): return .failure(.credentials(error))
        }
        let settings = settings
        let opened = attempts.run { attempt in
            // The TCP connect and the handshake together get the timeout, from one deadline
            // taken before either: one taken between them could miss a clock that moved
            // meanwhile (a manual clock's advance then wakes the handshake to a deadline
            // still ahead).
            let deadline = settings.timeout.map { attempt.now() + $0 }
            let bound = deadline == nil ? ContinuousClock.now + Self.unboundedAttemptLimit : nil
            let plan = { attempt.plan(until: deadline, bound: bound) }
            return Self.open(settings, context: tlsContext, wake: attempt.wake, plan: plan)
        }
        let connection: TLSConnection
        switch opened {
        case .success(let opened): connection = opened
        case .failure(let failure): return .failure(failure)
        }
        if let required = settings.requiredProtocol, connection.applicationProtocol != required {
            connection.close()
            return .failure(.protocolNotChosen(required: required, chosen: connection.applicationProtocol))
        }
        do throws(TLSError) {
            try connection.setKeepAlive(true)
        } catch {
            connection.close()
            return .failure(.connect(error))
        }
        return .success(Handoff(connection))
    }
}
