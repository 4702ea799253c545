import APNTLS
import APNWire // PThreadMutex in TSan builds
import Synchronization

/// The TLS client context, loaded on the first connection attempt and kept, failure
/// included: credentials are read and checked once, as node-apn's memoised credential
/// promise. Shared by `Connection`'s connector and `Feedback`'s reader.
final class ClientContextCache: Sendable {
    private let options: ClientCredentialOptions
    private let cached = Mutex<Result<TLSClientContext, APNError>?>(nil)

    init(_ options: ClientCredentialOptions) {
        self.options = options
    }

    func load() -> Result<TLSClientContext, APNError> {
        cached.withLock { cached in
            if let cached { return cached }
            let result = Result { () throws(APNError) in try ClientContextLoader.load(options) }
            cached = result
            return result
        }
    }
}
