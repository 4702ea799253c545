import APNTLS
import Synchronization

/// The TLS client context, loaded on the first connection attempt and kept, failure
/// included: credentials are read and checked once, as node-apn's memoised credential
/// promise. Shared by `Connection`'s connector and `Feedback`'s reader.
final class ClientContextCache: Sendable {
    private let options: ServiceAccess
    private let applicationProtocols: [String]
    private let cached = Lock<Result<TLSClientContext, APNError>?>(nil)

    init(_ options: ServiceAccess, applicationProtocols: [String] = []) {
        self.options = options
        self.applicationProtocols = applicationProtocols
    }

    func load() -> Result<TLSClientContext, APNError> {
        cached.withLock { cached in
            if let cached { return cached }
            let result = Result { () throws(APNError) in try ClientContextLoader.load(options, applicationProtocols: applicationProtocols) }
            cached = result
            return result
        }
    }
}
