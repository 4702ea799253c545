package import APNFeedbackStore
import APNWire

/// What a starting bridge makes of what earlier ones left in the store for a tenant (#41):
/// a pure decision, table-tested; ``Bridge`` performs it.
///
/// | a journal row | becomes |
/// |---|---|
/// | no answer of its own, at or below its instance's answered mark: accepted | a record entry, accepted (a resend is answered from it), unless the record rows already hold that content as often |
/// | answered: maybe delivered, refused | a record entry with that answer, the same way |
/// | answered: not delivered, its client told | nothing: the client resends it |
/// | answered: not delivered, its client gone (``ForwardJournal/Code/forwardAgain``) | forwarded again |
/// | unanswered, at or below its instance's mark (handed to the provider: maybe written) | a record entry, maybe delivered; counted; never forwarded |
/// | unanswered, above the mark (never written) | forwarded, unless read before `forwardSince` (counted `tooOld`) |
///
/// Record rows (the resend record an earlier bridge kept) come back as they were.
package struct JournalRecovery {
    /// Entries for the new record, oldest first: content, answer, when recorded (UNIX ms).
    package var record: [BridgeStateStore.ResendRow] = []
    /// What to forward, oldest first.
    package var forward: [BridgedNotification] = []
    /// Rows that may have been written and never answered.
    package var maybeDelivered = 0
    /// Rows to forward that were read longer ago than the retention: not forwarded (a
    /// bridge starting long after the last one stopped must not deliver stale pushes).
    package var tooOld = 0

    /// The decision for `recordRows` and `leftover`; rows to forward read before
    /// `forwardSince` (UNIX ms) are dropped and counted (``tooOld``).
    package init(recordRows: [BridgeStateStore.ResendRow], leftover: BridgeStateStore.JournalLeftover, forwardSince: Int64 = .min) {
        record = recordRows
        // What the record rows already hold, as a multiset: a journal row for the same
        // content (the notification the record row was made for) is not added twice.
        var held: [ResendKey: Int] = [:]
        for row in recordRows { held[Self.key(row.token, row.payload, row.expiry, row.priority), default: 0] += 1 }
        for row in leftover.rows {
            let key = Self.key(row.token, row.payload, row.expiry, row.priority)
            let answer: ResendRecord.Answer
            switch row.answer {
            case nil where leftover.wasAnswered(row):
                answer = .accepted
            case nil where leftover.wasSent(row):
                maybeDelivered += 1
                answer = .maybeDelivered
            case nil, ForwardJournal.Code.forwardAgain?:
                guard row.recordedAt >= forwardSince else {
                    tooOld += 1
                    continue
                }
                forward.append(
                    BridgedNotification(
                        command: .frame, identifier: 0, token: row.token, payload: row.payload, expiry: row.expiry,
                        priority: row.priority))
                continue
            case let code?:
                guard let recorded = ResendRecord.Answer(storeCode: code), recorded != .pending else { continue }
                answer = recorded
            }
            if let count = held[key], count > 0 {
                held[key] = count - 1
                continue
            }
            record.append(
                BridgeStateStore.ResendRow(
                    instance: row.instance, serial: row.seq, tenant: row.tenant, token: row.token, payload: row.payload,
                    expiry: row.expiry, priority: row.priority, answer: answer.storeCode, recordedAt: row.recordedAt))
        }
        record.sort { $0.recordedAt < $1.recordedAt }
    }

    private static func key(_ token: [UInt8], _ payload: [UInt8], _ expiry: UInt32, _ priority: UInt8) -> ResendKey {
        ResendKey(token: token, payload: payload, expiry: expiry, priority: priority)
    }
}
