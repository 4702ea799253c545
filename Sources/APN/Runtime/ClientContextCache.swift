import APNSupport
import APNTLS
import Synchronization

/// The TLS client context, loaded on the first connection attempt and kept, failure
/// included: credentials are read and checked once, as node-apn's memoised credential
/// promise. Shared by `Connection`'s connector and `Feedback`'s reader.
final class ClientContextCache: Sendable {
    private let options: ServiceAccess
    private let applicationProtocols: [String]
    private let log: ComponentLog
    private let cached = Lock<Result<TLSClientContext, APNError>?>(nil)

    /// `log` hears, once, that peer verification is off (``ServiceAccess/rejectUnauthorized``).
    init(_ options: ServiceAccess, applicationProtocols: [String] = [], log: ComponentLog) {
        self.options = options
        self.applicationProtocols = applicationProtocols
        self.log = log
    }

    /// Replaces what ``load()`` returns from now on (credentials loaded and checked
    /// elsewhere: ``Provider/useCredentials(_:)``); warns as a first load would.
    func replace(with context: TLSClientContext) {
        cached.withLock { $0 = .success(context) }
        warnIfUnverified(context)
    }

    func load() -> Result<TLSClientContext, APNError> {
        let (result, loaded) = cached.withLock { cached in
            if let cached { return (cached, false) }
            let result = Result { () throws(APNError) in try ClientContextLoader.load(options, applicationProtocols: applicationProtocols) }
            cached = result
            return (result, true)
        }
        // Outside the lock: the handler is the user's code.
        if loaded, case .success(let context) = result { warnIfUnverified(context) }
        return result
    }

    private func warnIfUnverified(_ context: TLSClientContext) {
        guard !context.verifiesPeer else { return }
        log(.warning, "TLS peer verification is off (rejectUnauthorized: false); the server's identity is not checked",
            metadata: ["peer": "\(options.host):\(options.port)"])
    }
}
