import Foundation
import Testing

/// A C file compiled at test time into a shared object that `apn` is started with
/// (`LD_PRELOAD`), so a test can make the built binary meet a fault from outside — a race
/// widened, a disk that fills at COMMIT — with no test hook compiled into the shipped
/// binary. Built by the C compiler on `PATH` into a temporary folder that is removed when
/// ``with(_:source:_:)`` returns; a suite that needs one is enabled only when there is a
/// compiler (`.enabled(if: PreloadShim.compiler != nil, …)`).
struct PreloadShim {
    /// The shared object.
    let path: String

    enum Failure: Error, CustomStringConvertible {
        case noCompiler
        case compile(String)

        var description: String {
            switch self {
            case .noCompiler: "no C compiler (clang, cc) on PATH to build the preloaded shim"
            case .compile(let error): "the preloaded shim did not compile: \(error)"
            }
        }
    }

    /// The C compiler beside the Swift toolchain, or the system's.
    static var compiler: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for name in ["clang", "cc"] {
            for directory in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }

    /// `extra` with `LD_PRELOAD` naming the shim: an `apn` process's environment.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        extra.merging(["LD_PRELOAD": path]) { _, preload in preload }
    }

    /// Compiles `source` (C) into `name`.so in a new temporary folder, calls `body` with it
    /// and removes the folder. Wait inside `body` for the exit of each process started with
    /// it: the child's loader opens the file after the spawn has returned.
    static func with<T>(_ name: String, source: String, _ body: (PreloadShim) throws -> T) throws -> T {
        guard let compiler else { throw Failure.noCompiler }
        let directory = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try source.write(toFile: "\(directory)/\(name).c", atomically: true, encoding: .utf8)
        let build = try ApnProcess(
            ["-shared", "-fPIC", "-o", "\(directory)/\(name).so", "\(directory)/\(name).c", "-ldl"], executable: compiler)
        let (status, error) = try build.waitForExit()
        guard status == 0 else { throw Failure.compile(error) }
        return try body(PreloadShim(path: "\(directory)/\(name).so"))
    }
}

extension PreloadShim {
    /// How many of the SQLite store's `COMMIT`s succeed before each later one fails as on a
    /// full disk (``storeFull(_:)``). The shim's variable: the binary reads no such thing.
    static let sqliteCommitsBeforeFull = "APN_SHIM_SQLITE_COMMITS_BEFORE_FULL"
    /// The same for a PostgreSQL store.
    static let postgresCommitsBeforeFull = "APN_SHIM_POSTGRES_COMMITS_BEFORE_FULL"

    /// The token store's commits failing as on a full disk, where a real full disk fails
    /// them — at `COMMIT`, after the batch was applied — on machines where a test cannot
    /// mount a small disk to fill (`ApnFeedbackServiceFullDiskTests` does where it can).
    ///
    /// SQLite: `sqlite3_exec(db, "COMMIT", …)` past the count returns SQLITE_FULL (13)
    /// without committing, with SQLite's own message in `*errmsg` and, until that
    /// connection's next `sqlite3_exec` on this thread, from `sqlite3_errmsg` (as after a real
    /// failure: the store's message is built from both); the store's ROLLBACK then runs for
    /// real. PostgreSQL: `PQexec(conn, "COMMIT")` past the count runs a statement that raises
    /// the server's disk_full (SQLSTATE 53100) instead, so the result is a real error of the
    /// server and the transaction is aborted uncommitted. Every COMMIT of the process counts
    /// (with PostgreSQL, opening the store commits once, for its schema), on any thread:
    /// the counters are atomic. Unset, a variable changes nothing.
    static let storeFullSource = #"""
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <stdlib.h>
        #include <string.h>

        typedef struct sqlite3 sqlite3;
        typedef int (*exec_t)(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *, char **);
        typedef const char *(*errmsg_t)(sqlite3 *);
        typedef char *(*mprintf_t)(const char *, ...);
        typedef void *(*pqexec_t)(void *, const char *);

        static const char fullMessage[] = "database or disk is full";
        static long sqliteLimit = -1, postgresLimit = -1;
        static long sqliteCommits, postgresCommits;
        /* The connection whose last sqlite3_exec on this thread was failed here. */
        static __thread sqlite3 *failed;

        static long limit(const char *name) {
            const char *text = getenv(name);
            return text && *text ? atol(text) : -1;
        }

        __attribute__((constructor)) static void readLimits(void) {
            sqliteLimit = limit("APN_SHIM_SQLITE_COMMITS_BEFORE_FULL");
            postgresLimit = limit("APN_SHIM_POSTGRES_COMMITS_BEFORE_FULL");
        }

        static void *next(void **slot, const char *name) {
            void *function = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
            if (!function) {
                function = dlsym(RTLD_NEXT, name);
                __atomic_store_n(slot, function, __ATOMIC_RELEASE);
            }
            return function;
        }

        /* Whether this COMMIT is past the limit: counted whichever thread commits. */
        static int full(const char *sql, long limit, long *commits) {
            return limit >= 0 && sql && strcmp(sql, "COMMIT") == 0
                && __atomic_fetch_add(commits, 1, __ATOMIC_SEQ_CST) >= limit;
        }

        int sqlite3_exec(sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *argument,
                         char **errmsg) {
            static void *real, *mprintf;
            failed = NULL;
            if (full(sql, sqliteLimit, &sqliteCommits)) {
                failed = db;
                if (errmsg) {
                    mprintf_t print = (mprintf_t)next(&mprintf, "sqlite3_mprintf");
                    *errmsg = print ? print("%s", fullMessage) : NULL;
                }
                return 13; /* SQLITE_FULL */
            }
            return ((exec_t)next(&real, "sqlite3_exec"))(db, sql, callback, argument, errmsg);
        }

        const char *sqlite3_errmsg(sqlite3 *db) {
            static void *real;
            if (db && db == failed) return fullMessage;
            return ((errmsg_t)next(&real, "sqlite3_errmsg"))(db);
        }

        void *PQexec(void *conn, const char *query) {
            static void *real;
            pqexec_t exec = (pqexec_t)next(&real, "PQexec");
            if (full(query, postgresLimit, &postgresCommits))
                return exec(conn, "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = 'disk_full', "
                                  "MESSAGE = 'could not extend file: No space left on device'; END $$");
            return exec(conn, query);
        }
        """#

    /// ``with(_:source:_:)`` for ``storeFullSource``.
    static func storeFull<T>(_ body: (PreloadShim) throws -> T) throws -> T {
        try with("store-full", source: storeFullSource, body)
    }
}
