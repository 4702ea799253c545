package import APNCore
package import APNFeedbackStore
import CSQLite

/// A token registry whose commits fail as on a full disk after `remaining` more succeed: a
/// decorator around a real backend, so that the production stores carry no test hook (#43).
/// A full disk cannot be made on every test machine (`mount` needs root); this is the same
/// failure at the same place — the write transaction's end, after the batch was applied —
/// and the real backend rolls the batch back. `checkWritable(freeBytes:)` commits nothing,
/// so it still passes, as it does on a disk that fills between the check and the commit.
///
/// Not thread-safe, as the store it wraps: one thread at a time.
package final class CommitFailingRegistry: TokenRegistryBackend {
    private let wrapped: any TokenRegistryBackend
    /// Commits that succeed before every later one fails.
    private var remaining: Int

    /// Wraps `wrapped`; `after` more commits succeed.
    package init(_ wrapped: any TokenRegistryBackend, after count: Int) {
        self.wrapped = wrapped
        remaining = max(0, count)
    }

    package func writeTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try wrapped.writeTransaction { () throws(StoreError) -> T in
            let value = try body()
            guard remaining > 0 else {
                throw StoreError(
                    .full, "the disk holding the token store is full; COMMIT failed: database or disk is full (injected for a test)",
                    resultCode: SQLITE_FULL)
            }
            remaining -= 1
            return value
        }
    }

    package func upsert(_ registrations: [TokenStore.Registration]) throws(StoreError) -> Int {
        try wrapped.upsert(registrations)
    }

    package func apply(_ entries: [FeedbackEntry], readAt: Int64, into summary: inout FeedbackApplication) throws(StoreError) {
        try wrapped.apply(entries, readAt: readAt, into: &summary)
    }

    package func unregister(_ token: [UInt8], at time: Int64) throws(StoreError) -> Bool {
        try wrapped.unregister(token, at: time)
    }

    package func lookup(_ token: [UInt8]) throws(StoreError) -> TokenRecord? {
        try wrapped.lookup(token)
    }

    package func list(_ filter: TokenStore.Filter, _ body: (TokenRecord) throws -> Void) throws {
        try wrapped.list(filter, body)
    }

    package func counts() throws(StoreError) -> (active: Int, inactive: Int) {
        try wrapped.counts()
    }

    package func feedback(_ body: (FeedbackRecord) throws -> Void) throws {
        try wrapped.feedback(body)
    }

    package func feedbackCount() throws(StoreError) -> Int {
        try wrapped.feedbackCount()
    }

    package func delete(_ tokens: [[UInt8]]) throws(StoreError) -> Int {
        try wrapped.delete(tokens)
    }

    package func prune(inactiveBefore time: Int64) throws(StoreError) -> Int {
        try wrapped.prune(inactiveBefore: time)
    }

    package func snapshot<T>(_ body: () throws -> T) throws -> T {
        try wrapped.snapshot(body)
    }

    package func checkWritable(freeBytes: Int) throws(StoreError) {
        try wrapped.checkWritable(freeBytes: freeBytes)
    }
}

extension TokenStore {
    /// `store` with its commits failing as on a full disk after `count` more succeed
    /// (``CommitFailingRegistry``); use the returned store, not `store`.
    package static func failingCommits(_ store: TokenStore, after count: Int) -> TokenStore {
        TokenStore(backend: CommitFailingRegistry(store.backend, after: count))
    }
}
