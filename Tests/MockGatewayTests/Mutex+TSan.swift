#if APN_TSAN
import APNWire

/// ThreadSanitizer builds (`-Xswiftc -DAPN_TSAN`) lock with a mutex TSan can see.
typealias Mutex = PThreadMutex
#endif
