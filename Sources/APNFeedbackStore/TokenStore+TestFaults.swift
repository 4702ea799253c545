extension TokenStore {
    /// Tests only: after `count` more successful commits, every commit of this store fails
    /// as on a full disk (``StoreError/Kind/full``, SQLite 13), the transaction rolled back.
    /// A real full disk cannot be made on every test machine (`mount` needs root); this is
    /// the same failure at the same place, `COMMIT`, after the batch was applied.
    /// ``checkWritable(freeBytes:)`` does not commit, so it still passes.
    package func failCommits(after count: Int) {
        backend.failCommits(after: count)
    }
}
