extension MockGateway {
    /// The records accepted from position `start` (0-based: the record with `sequence`
    /// `start + 1`) on, at most `limit` of them, in the order accepted (a snapshot). Records
    /// no longer kept (``Configuration/recordRetention``) are skipped: it starts at the
    /// oldest kept when `start` lies before it. A reader that follows the records passes
    /// the count it has already seen.
    ///
    /// - Precondition: `start >= 0`, `limit >= 0`.
    public func records(from start: Int, limit: Int) -> [Record] {
        shared.records(from: start, limit: limit)
    }

    /// How many accepted notifications are no longer kept in memory: discarded under
    /// ``RecordRetention/Overflow/discardOldest``, or released by ``releaseRecords(through:)``.
    /// ``records`` starts at the record with `sequence` one above it.
    public var discardedRecordCount: Int {
        shared.discardedRecordCount
    }

    /// Frees the records up to and including the one with `sequence`, once a consumer has
    /// copied them (`apn mock-gateway --record` does, after writing them to its file).
    /// Under ``RecordRetention/Overflow/pauseConnections`` the connections waiting for room
    /// go on.
    public func releaseRecords(through sequence: Int) {
        shared.releaseRecords(upTo: sequence)
    }
}

extension MockGateway {
    /// Appends the record file's lines (`apn mock-gateway --record`) of at most `limit`
    /// records from position `start` on (as ``records(from:limit:)`` picks them) to `lines`,
    /// and returns the position after the last one appended (`start` when none was).
    /// Copied under the gateway's lock, formatted after it is released.
    package func appendRecordLines(from start: Int, limit: Int, to lines: inout RecordLineBuffer) -> Int {
        shared.appendRecordLines(from: start, limit: limit, to: &lines)
    }
}
