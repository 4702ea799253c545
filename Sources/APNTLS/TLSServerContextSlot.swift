import APNSupport
import Synchronization

/// The server context a listener hands its new connections, replaceable while it accepts
/// (the bridge's SIGHUP: a rotated certificate or client CA). A connection keeps the
/// context it was accepted with: OpenSSL counts the connection's reference, so the old
/// context lives on until its last connection closes.
package final class TLSServerContextSlot: Sendable {
    private let context: Lock<TLSServerContext>

    /// A slot holding `context`.
    package init(_ context: TLSServerContext) {
        self.context = Lock(context)
    }

    /// The context new connections get.
    package var current: TLSServerContext { context.withLock { $0 } }

    /// New connections get `context` from now on.
    package func replace(with context: TLSServerContext) {
        self.context.withLock { $0 = context }
    }
}
