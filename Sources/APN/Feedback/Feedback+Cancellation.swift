import APNSupport
import APNTLS
import Synchronization

extension Feedback {
    /// Ends a ``Feedback/visit(batchSize:cancellation:_:)`` from any thread, at once: the
    /// visit waits on the socket and on this object's wake-up descriptor together, so
    /// ``cancel()`` wakes it whether it is connecting, in its handshake or reading. Also
    /// what a cancelled ``Feedback/read()`` uses.
    ///
    /// One cancellation may serve several visits one after the other (a service that stops
    /// for good), not at the same time: a visit resets the wake-up it waits on, which could
    /// hide it from another. Once cancelled it stays cancelled, and a visit given it ends
    /// before it connects. Thread-safe.
    public final class Cancellation: Sendable {
        private let raised = Atomic<Bool>(false)
        /// Signalled by ``cancel()``; a visit polls it beside its socket and resets it.
        let wake: WakeSignal

        /// A cancellation not yet cancelled.
        ///
        /// - Throws: ``APNError/Code/connectionFailed`` when the system has no file descriptor
        ///   left for the wake-up pipe.
        public init() throws(APNError) {
            do throws(SystemCallError) {
                wake = try WakeSignal()
            } catch {
                throw APNError.connectFailure(TLSError(error))
            }
        }

        /// Whether ``cancel()`` was called.
        public var isCancelled: Bool { raised.load(ordering: .sequentiallyConsistent) }

        /// Ends the visits using this cancellation, now and later. Idempotent; callable from
        /// any thread, and from a signal-handling dispatch source (it takes no lock).
        public func cancel() {
            // The flag first: the woken visit, which resets the signal, then finds it set.
            raised.store(true, ordering: .sequentiallyConsistent)
            wake.signal()
        }
    }
}
