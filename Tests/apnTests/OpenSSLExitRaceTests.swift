import Foundation
import Testing

/// "double free or corruption (fasttop)", signal 6, as `apn send` exited on a loaded
/// machine: OpenSSL's `atexit` cleanup freed every thread's OpenSSL state while a
/// connection's thread was still ending, and that thread's exit freed it again. OpenSSL is
/// now initialised without the `atexit` cleanup (`OpenSSLLibrary`). A preloaded shim of our
/// own widens the race as a loaded machine does — libcrypto's thread-exit destructors run
/// late, the process lingers after its exit handlers — so the old code aborted every time.
@Suite struct OpenSSLExitRaceTests {
    static let shim = #"""
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <pthread.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>
        typedef void (*destructor_t)(void *);
        static destructor_t held[8];
        static int count;
        static void late(void *value, int slot) { usleep(20000); held[slot](value); }
        #define LATE(n) static void late##n(void *v) { late(v, n); }
        LATE(0) LATE(1) LATE(2) LATE(3) LATE(4) LATE(5) LATE(6) LATE(7)
        static destructor_t lates[] = {late0, late1, late2, late3, late4, late5, late6, late7};
        int pthread_key_create(pthread_key_t *key, destructor_t destructor) {
            static int (*real)(pthread_key_t *, destructor_t);
            if (!real) real = (int (*)(pthread_key_t *, destructor_t))dlsym(RTLD_NEXT, "pthread_key_create");
            Dl_info info;
            if (destructor && count < 8 && dladdr(__builtin_return_address(0), &info) && info.dli_fname
                && strstr(info.dli_fname, "libcrypto")) {
                held[count] = destructor;
                return real(key, lates[count++]);
            }
            return real(key, destructor);
        }
        static void linger(void) { usleep(300000); }
        __attribute__((constructor)) static void registerFirst(void) { atexit(linger); }
        """#

    @Test(.enabled(if: PreloadShim.compiler != nil, "no C compiler to build the shim"))
    func apnSendExitsCleanlyWhileItsThreadsEnd() throws {
        try PreloadShim.with("openssl-exit", source: Self.shim) { shim in
            let fixture = try SendFixture()
            for round in 0..<3 {
                let send = try ApnProcess(
                    ["send", "--certs", fixture.certs, "--address", fixture.address, "--token", String(repeating: "ab", count: 32),
                     "--alert", "exit \(round)"],
                    environment: shim.environment())
                let (status, standardError) = try send.waitForExit(timeout: 30)
                #expect(status == 0, "round \(round): \(standardError)")
                #expect(!standardError.contains("double free"), "round \(round): \(standardError)")
            }
        }
    }
}
