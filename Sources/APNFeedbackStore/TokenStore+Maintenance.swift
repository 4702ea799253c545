public import APNCore

extension TokenStore {
    /// Forgets `devices`: their rows and the feedback recorded for them, in one transaction,
    /// as if never registered. Returns how many of them the store held.
    @discardableResult
    public func delete(_ devices: [Device]) throws(StoreError) -> Int {
        try backend.delete(devices.map(\.token))
    }

    /// Forgets every inactive token deactivated before `time` (UNIX seconds), with the
    /// feedback recorded for it, in one transaction; active tokens are kept whatever their
    /// age. Returns how many were deleted.
    @discardableResult
    public func prune(inactiveBefore time: Int64) throws(StoreError) -> Int {
        try backend.prune(inactiveBefore: time)
    }
}

extension TokenStore {
    /// Runs `body` in one read transaction, so that what it reads in several statements is one
    /// snapshot (an export's tokens and feedback agree though a writer commits meanwhile).
    public func snapshot<T>(_ body: () throws -> T) throws -> T {
        try backend.snapshot(body)
    }
}
