package import APNFeedbackStore
import APNSupport
import APNWire

/// The resend record's rows in the store (#41): how an entry's answer is coded, and how a
/// tenant's record changes become ``BridgeStateStore/ResendChange``s and rows come back.
extension ResendRecord.Answer {
    /// The answer's code in a store row: 0 accepted, 1 maybe delivered, 2 pending,
    /// 65,536 + the binary status for a refusal.
    package var storeCode: Int64 {
        switch self {
        case .accepted: 0
        case .maybeDelivered: 1
        case .pending: 2
        case .refused(let status): 65_536 + Int64(status.rawValue)
        }
    }

    /// The answer a store code names; nil for a code this code does not write.
    package init?(storeCode: Int64) {
        switch storeCode {
        case 0: self = .accepted
        case 1: self = .maybeDelivered
        case 2: self = .pending
        case 65_536...131_071: self = .refused(StatusCode(rawValue: UInt16(storeCode - 65_536)))
        default: return nil
        }
    }
}

/// Where one tenant's record is kept: its rows carry `instance` (the bridge process) and
/// `tenant`, and times as UNIX milliseconds counted from `originMilliseconds`, the wall
/// clock at the record's time zero.
package struct ResendRecordRows: Sendable {
    package let instance: Int64
    package let tenant: String
    package let originMilliseconds: Int64

    /// Rows for `tenant`'s record, written by `instance`, whose time 0 is `originMilliseconds`.
    package init(instance: Int64, tenant: String, originMilliseconds: Int64) {
        self.instance = instance
        self.tenant = tenant
        self.originMilliseconds = originMilliseconds
    }

    /// The store's changes for the record's.
    package func changes(_ changes: [ResendRecord.Change]) -> [BridgeStateStore.ResendChange] {
        changes.map { change in
            switch change {
            case .inserted(let serial, let key, let answer, let recordedAt):
                .insert(row(serial: serial, key: key, answer: answer, recordedAt: recordedAt))
            case .answered(let serial, let answer):
                .answer(instance: instance, serial: Int64(bitPattern: serial), answer: answer.storeCode)
            case .removed(let serial):
                .delete(instance: instance, serial: Int64(bitPattern: serial))
            }
        }
    }

    /// The row of one entry.
    package func row(serial: UInt64, key: ResendKey, answer: ResendRecord.Answer, recordedAt: Duration) -> BridgeStateStore.ResendRow {
        BridgeStateStore.ResendRow(
            instance: instance, serial: Int64(bitPattern: serial), tenant: tenant, token: key.token,
            payload: key.payload, expiry: key.expiry, priority: key.priority, answer: answer.storeCode,
            recordedAt: originMilliseconds + recordedAt.wholeMilliseconds)
    }

    /// Puts `rows` (another bridge's, oldest first) into `record`, each kept in the store
    /// as `kept` says: taken over under this instance (``ResendRecord/Restored/stored(serial:)``)
    /// or a live peer's (``ResendRecord/Restored/peer``). Rows with an answer code this
    /// code does not write are skipped.
    package func restore(
        _ rows: [BridgeStateStore.ResendRow], into record: inout ResendRecord,
        as kept: (BridgeStateStore.ResendRow) -> ResendRecord.Restored
    ) {
        for row in rows {
            guard let answer = ResendRecord.Answer(storeCode: row.answer) else { continue }
            record.restore(
                ResendKey(token: row.token, payload: row.payload, expiry: row.expiry, priority: row.priority),
                answer: answer, recordedAt: .milliseconds(row.recordedAt - originMilliseconds), as: kept(row))
        }
    }
}
