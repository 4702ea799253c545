#if canImport(Glibc)
import Glibc
#endif

/// A lock with `Synchronization.Mutex`'s `withLock` shape, built on `pthread_mutex`, which
/// ThreadSanitizer understands. `Synchronization.Mutex` locks through calls TSan does not
/// see, so a TSan build reports every access under it as a race; builds with
/// `-Xswiftc -DAPN_TSAN` use this type in its place (``Lock``).
package final class PThreadMutex<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, under `lock`.
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: consuming Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result: ~Copyable, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
