extension TokenStore {
    /// Checks that the store can take a write now, for a caller about to receive something
    /// it cannot get again — a feedback visit, whose tuples Apple's service serves once — so
    /// that it does not take what it could not commit.
    ///
    /// SQLite: a write transaction taken and rolled back (a lock held elsewhere, a read-only
    /// file, a damaged file), then `freeBytes` allocated beside the file and released (a full
    /// disk or quota). PostgreSQL: a write transaction taken and rolled back (the server
    /// reachable, the login allowed to write); the server's disk is its own, so `freeBytes`
    /// is not checked there. A check is not a reservation: a commit can still fail, and the
    /// caller must still keep what it could not commit.
    ///
    /// - Parameter freeBytes: the room to prove, at least what the caller's next commit may
    ///   need; 0 checks the transaction only.
    /// - Throws: ``StoreError`` — `full` when the room is not there, `locked`, `cannotOpen`
    ///   (the folder cannot be written, the server cannot be reached), or another kind.
    public func checkWritable(freeBytes: Int) throws(StoreError) {
        try backend.checkWritable(freeBytes: freeBytes)
    }
}
