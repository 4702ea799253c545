internal import COpenSSL

/// OpenSSL's process-wide initialisation, once, before any other call that initialises it.
///
/// Without `OPENSSL_INIT_NO_ATEXIT`, OpenSSL registers `OPENSSL_cleanup` with `atexit()`:
/// `exit()` then frees the library's global state and every thread's thread-local state
/// while other threads may still be using OpenSSL or exiting — a connection's I/O thread
/// released as `main` returns, a connect attempt that has just failed. Their thread-exit
/// handler frees the same state again: "double free or corruption (fasttop)", signal 6
/// (OpenSSL issue #6214). The process's memory goes back to the system at exit anyway.
package enum OpenSSLLibrary {
    private static let initialized: Bool = {
        let options = UInt64(OPENSSL_INIT_NO_ATEXIT) | UInt64(OPENSSL_INIT_LOAD_SSL_STRINGS)
            | UInt64(OPENSSL_INIT_LOAD_CRYPTO_STRINGS)
        return OPENSSL_init_ssl(options, nil) == 1
    }()

    /// Initialises OpenSSL without its exit-time cleanup, if not done yet. Call it before
    /// any other OpenSSL function (``OpenSSLErrorQueue/clear()`` does); an executable calls it
    /// first thing, in case another library initialises OpenSSL before swift-apn does.
    package static func initialize() {
        _ = initialized
    }
}
