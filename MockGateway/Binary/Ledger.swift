import APNWire
import APNGatewayServer

/// Everything the gateway's threads share, as a plain value: the faults, what was accepted
/// and refused, the connection counts and the feedback queue. It is only ever touched inside
/// ``SharedState``'s mutex, so each judgement below is atomic with the record it writes.
/// Not copyable, as the ``RecordStore`` it holds is not.
struct Ledger: GatewayLedger, ~Copyable {
    var faults: MockGateway.Faults {
        didSet { judgesByFaults = faults.judgesNotifications }
    }
    /// Whether any fault can refuse a notification or act after one: when not, judging is
    /// just recording (the common case, and the one benchmarks measure).
    private var judgesByFaults: Bool
    var records: RecordStore
    /// How many notifications were accepted: ``records`` `.count`.
    var recordCount: Int { records.count }
    var firstKeptRecord: Int { records.blocks.firstKept }
    var recordRoom: Int { records.blocks.room }

    mutating func releaseRecords(upTo end: Int) {
        records.blocks.release(upTo: end)
    }

    /// The records at `range`, as public values.
    func records(in range: Range<Int>) -> [MockGateway.Record] {
        records.records(in: range)
    }

    func copyRecords(_ range: Range<Int>, into copy: inout RecordStore.Copy) {
        records.copy(range, into: &copy)
    }
    var rejections: [MockGateway.RejectionRecord] = []
    /// Confirmation markers answered (``MockGateway/markerCount``): kept out of
    /// ``rejections``, as they refuse nothing a client meant to deliver.
    var markerCount = 0
    /// Notifications decoded overall, accepted or not: numbers the next one.
    var decodedCount = 0
    var connectionCount = 0
    /// Gateway connections open now (handshake done, not ended).
    var openConnectionCount = 0
    var feedbackConnectionCount = 0
    /// Feedback tuples handed to feedback connections (``MockGateway/servedFeedbackCount``).
    var servedFeedbackCount = 0
    var feedbackQueue: [(time: UInt32, token: [UInt8])] = []

    init(faults: MockGateway.Faults, retention: RecordRetention) {
        self.faults = faults
        records = RecordStore(retention: retention)
        judgesByFaults = faults.judgesNotifications
    }

    /// Numbers a gateway connection whose handshake completed.
    mutating func openConnection() -> Int {
        connectionCount += 1
        openConnectionCount += 1
        return connectionCount
    }

    /// A gateway connection that ``openConnection()`` numbered has ended.
    mutating func closeConnection() {
        openConnectionCount -= 1
    }

    /// Judges one valid notification against the faults, recording it when accepted.
    /// `ordinal` is its number on its connection (1-based).
    mutating func judge(_ notification: DecodedNotificationView, connection: Int, ordinal: Int) -> Verdict {
        decodedCount += 1
        guard judgesByFaults else {
            records.append(notification, connection: connection)
            return .goOn
        }
        if let status = rejectionStatus(for: notification, ordinal: ordinal) {
            return .end(refuse(
                status: status, identifier: notification.identifier, command: notification.command,
                connection: connection))
        }
        records.append(notification, connection: connection)
        if let end = endAfterAccepting(notification, connection: connection) { return .end(end) }
        return stallAfterAccepting().map(Verdict.stall) ?? .goOn
    }

    /// Records a rejection the decoder made (validation as Apple did) and says how to end.
    /// A client's confirmation marker (an empty token and an empty payload, command 1 or 2:
    /// ``Rejection/isConfirmationMarker``) is answered exactly the same, but counted in
    /// ``markerCount`` instead of ``rejections``. An empty token with a payload is a
    /// client's mistake and stays a rejection.
    mutating func refuse(_ rejection: Rejection, connection: Int) -> ConnectionEnd {
        refuse(status: rejection.status, identifier: rejection.identifier, command: rejection.command,
               connection: connection, isMarker: rejection.isConfirmationMarker)
    }

    /// Notes how many notifications were thrown away after the `index`-th rejection
    /// before its error response (``MockGateway/RejectionRecord/discardedAfter``).
    mutating func noteDiscarded(_ count: Int, afterRejection index: Int) {
        rejections[index].discardedAfter = count
    }

    /// Takes every queued feedback tuple, encoded: a feedback connection serves them once.
    mutating func takeFeedback() -> FeedbackBatch {
        feedbackConnectionCount += 1
        var bytes = WireBuffer(capacity: feedbackQueue.reduce(0) { $0 + 6 + $1.token.count })
        for tuple in feedbackQueue {
            bytes.writeFeedbackTuple(time: tuple.time, token: tuple.token)
        }
        servedFeedbackCount += feedbackQueue.count
        feedbackQueue.removeAll()
        return FeedbackBatch(
            bytes: bytes.readableBytesArray, writeSize: faults.feedbackWriteSize, pause: faults.feedbackWritePause)
    }

    /// The status a rejection fault gives the notification, if any. Each table is looked
    /// up only when it has entries: hashing a token costs more than the rest of the path.
    private func rejectionStatus(for notification: DecodedNotificationView, ordinal: Int) -> StatusCode? {
        if !faults.rejectedTokens.isEmpty, let status = faults.rejectedTokens[Array(notification.token)] {
            return status
        }
        if !faults.rejectedIdentifiers.isEmpty, let identifier = notification.identifier,
           let status = faults.rejectedIdentifiers[identifier] {
            return status
        }
        if !faults.rejectedOrdinals.isEmpty, let status = faults.rejectedOrdinals[decodedCount] { return status }
        guard !faults.rejectedOrdinalsOnEachConnection.isEmpty else { return nil }
        return faults.rejectedOrdinalsOnEachConnection[ordinal]
    }

    /// The one-shot "after N accepted" faults, checked right after a notification was recorded.
    private mutating func endAfterAccepting(_ notification: DecodedNotificationView, connection: Int) -> ConnectionEnd? {
        let accepted = records.count
        if faults.shutdownAfter == accepted {
            faults.shutdownAfter = nil
            return refuse(
                status: .shutdown, identifier: notification.identifier, command: notification.command,
                connection: connection)
        }
        if faults.closeAfter == accepted {
            faults.closeAfter = nil
            return .close
        }
        if let every = faults.closeEvery, every > 0, accepted % every == 0 { return .close }
        if let every = faults.resetEvery, every > 0, accepted % every == 0 { return .reset }
        if faults.resetAfter == accepted {
            faults.resetAfter = nil
            return .reset
        }
        return nil
    }

    /// The one-shot read stall, checked after a notification was recorded and kept going.
    private mutating func stallAfterAccepting() -> Stall? {
        guard faults.stallReadsAfter == records.count else { return nil }
        faults.stallReadsAfter = nil
        return Stall(duration: faults.stallDuration, end: faults.stallEnd)
    }

    /// Records an error and builds the response the faults shape; command 0 has no error
    /// response, so Apple's gateway just closed.
    private mutating func refuse(
        status: StatusCode, identifier: UInt32?, command: Command, connection: Int, isMarker: Bool = false
    ) -> ConnectionEnd {
        if isMarker {
            markerCount += 1
        } else {
            rejections.append(MockGateway.RejectionRecord(status: status, identifier: identifier, connection: connection))
        }
        guard command != .simple else { return .close }
        let wireStatus = status.isAppleStatus ? status : .unknown
        let wireIdentifier = faults.errorIdentifierOverride ?? identifier ?? 0
        var reply = ErrorReply(status: wireStatus, identifier: wireIdentifier)
        reply.lag = max(0, faults.errorResponseLag)
        // The error-response delay, plus the latency the answer travels.
        reply.delay = max(.zero, faults.errorResponseDelay) + max(.zero, faults.latency)
        reply.split = faults.splitsErrorResponse
        reply.byteInterval = faults.errorResponseByteInterval
        return .errorResponse(reply)
    }
}

extension MockGateway.Faults {
    /// Whether these faults can refuse a notification, or end or stall a connection after
    /// accepting one. The others (error response shape, feedback) act elsewhere. A new
    /// fault that acts on notifications must be added here, or it is never consulted.
    var judgesNotifications: Bool {
        !rejectedTokens.isEmpty || !rejectedIdentifiers.isEmpty || !rejectedOrdinals.isEmpty
            || !rejectedOrdinalsOnEachConnection.isEmpty
            || shutdownAfter != nil || closeAfter != nil || resetAfter != nil || stallReadsAfter != nil
            || closeEvery != nil || resetEvery != nil
    }
}

/// The gateway's decision on one notification, or on all that one read brought: what the
/// connection does next.
enum Verdict: Sendable {
    /// Everything decodable was judged: read more.
    case goOn
    /// As many notifications as allowed were judged; more may be decodable, judged when
    /// allowed again (``MockGateway/Faults/readRate``).
    case limitReached
    /// Stop reading for a while, then end as the stall says (by default go on with what
    /// is left in the decoder). Indirect, as rare: the verdict made per read stays small.
    indirect case stall(Stall)
    /// The records are full (``RecordRetention/Overflow/pauseConnections``): read and
    /// judge nothing until a consumer releases some, then go on with the decoder.
    case recordsFull
    /// End the connection so.
    case end(ConnectionEnd)
}
