internal import Glibc

extension SQLiteTokenBackend {
    /// Checks that the store can take a write now, for a caller about to receive something
    /// it cannot get again — a feedback visit, whose tuples Apple's service serves once — so
    /// that it does not take what it could not commit.
    ///
    /// Two things are checked, because each catches failures the other cannot:
    /// - a write transaction: `BEGIN IMMEDIATE` (the write lock, within
    ///   ``Options/busyTimeout``), a page changed, then rolled back. This finds a lock held
    ///   elsewhere, a read-only file or mount, a damaged file. It cannot find a full disk:
    ///   in WAL mode a transaction's pages reach the disk only at `COMMIT`, so a rolled-back
    ///   one writes nothing, and a committed one may reuse WAL space already allocated.
    /// - room on the disk: `freeBytes` allocated (`posix_fallocate`) to a scratch file
    ///   beside the store, then deleted. A full disk fails SQLite at `COMMIT`, when the WAL
    ///   grows; this allocates from the same file system, in the same folder, so it meets the
    ///   same free space, quota and reserved blocks (which `statvfs` figures do not all show).
    ///
    /// A check is not a reservation: another process can fill the disk right after it, so a
    /// commit can still fail, and the caller must still keep what it could not commit.
    ///
    /// - Parameter freeBytes: the room to prove, at least what the caller's next commit may
    ///   need; 0 checks the transaction only.
    /// - Throws: ``StoreError`` — `full` when the room is not there, `locked`, `cannotOpen`
    ///   (the folder cannot be written), or `sqlite` for another failure.
    func checkWritable(freeBytes: Int) throws(StoreError) {
        try checkTransaction()
        if freeBytes > 0 { try checkRoom(freeBytes) }
    }

    private func checkTransaction() throws(StoreError) {
        try database.execute("BEGIN IMMEDIATE")
        do {
            // Setting user_version to the value it has changes page 1 and nothing a reader
            // sees, so even a commit by mistake would be harmless.
            let version = try SQLiteSchema.userVersion(database)
            try database.execute("PRAGMA user_version = \(version)")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
        try database.execute("ROLLBACK")
    }

    private func checkRoom(_ bytes: Int) throws(StoreError) {
        let scratch = path + ".write-check"
        let descriptor = open(scratch, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Self.roomError(errno, "cannot create \(scratch)", bytes) }
        defer {
            close(descriptor)
            unlink(scratch)
        }
        // Allocated, not written: as cheap for 64 MiB as for 64 KiB (glibc writes a byte per
        // block only where the file system cannot allocate without writing).
        let result = posix_fallocate(descriptor, 0, off_t(bytes))
        guard result == 0 else {
            throw Self.roomError(result, "cannot allocate \(bytes) bytes beside the token store (\(scratch))", bytes)
        }
    }

    private static func roomError(_ code: Int32, _ context: String, _ bytes: Int) -> StoreError {
        let reason = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT {
            return StoreError(
                .full, "the disk holding the token store has less than \(bytes) bytes free; \(context): \(reason)")
        }
        return StoreError(.cannotOpen, "\(context): \(reason)")
    }
}
