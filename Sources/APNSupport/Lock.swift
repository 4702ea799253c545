#if APN_TSAN
/// ThreadSanitizer builds (`-Xswiftc -DAPN_TSAN`) lock with ``PThreadMutex``, whose
/// locking TSan can see (it cannot see `Synchronization.Mutex`'s).
package typealias Lock<Value: ~Copyable> = PThreadMutex<Value>
#else
package import Synchronization

/// The lock every module of the package uses: `Synchronization.Mutex`, swapped for
/// ``PThreadMutex`` in ThreadSanitizer builds. A file that uses it also imports
/// `Synchronization`, through which `Mutex`'s `init(_:)` and `withLock(_:)` are visible.
package typealias Lock<Value: ~Copyable> = Synchronization.Mutex<Value>
#endif
