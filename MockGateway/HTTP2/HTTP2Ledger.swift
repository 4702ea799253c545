import APNWire
import APNHTTP2
import APNSupport
import Foundation
import APNGatewayServer

/// Everything the HTTP/2 gateway's threads share, as a plain value guarded by
/// ``GatewayState``'s mutex: the faults, the accepted notifications, the counters. A
/// connection judges all the requests one read brought in one critical section, so the
/// records are in a single global order and each answer fault counts exactly.
struct HTTP2Ledger: GatewayLedger, ~Copyable {
    var faults: HTTP2MockGateway.Faults {
        didSet { judgesByFaults = faults.judgesRequests }
    }
    /// Whether any answer fault is set: when not, judging a valid request is recording it.
    private var judgesByFaults: Bool
    private var records: HTTP2RecordStore
    var summary = HTTP2MockGateway.Summary()
    /// Connections open now (``HTTP2MockGateway/Summary/connections`` counts every one).
    var openConnectionCount = 0
    /// The broadcast channels, per bundle id.
    var channels: ChannelRegistry
    /// The accepted broadcasts.
    var broadcasts: BroadcastStore
    /// The `apns-unique-id`s of accepted broadcasts.
    private var broadcastIDs = UUIDSequence()

    init(faults: HTTP2MockGateway.Faults, retention: RecordRetention, channels: ChannelRegistry) {
        self.faults = faults
        records = HTTP2RecordStore(retention: retention)
        judgesByFaults = faults.judgesRequests
        self.channels = channels
        broadcasts = BroadcastStore(limit: retention.limit)
    }

    var recordCount: Int { records.count }
    var firstKeptRecord: Int { records.blocks.firstKept }
    var recordRoom: Int { records.blocks.room }

    mutating func releaseRecords(upTo end: Int) {
        records.blocks.release(upTo: end)
    }

    /// Numbers a connection whose handshake completed with `h2`.
    mutating func openConnection() -> Int {
        summary.connections += 1
        openConnectionCount += 1
        return summary.connections
    }

    /// A connection that ``openConnection()`` numbered has ended.
    mutating func closeConnection() {
        openConnectionCount -= 1
    }

    /// Judges `requests` in order — validation's refusals stand, valid requests meet the
    /// answer faults, the accepted are recorded — and appends one answer each to `answers`.
    /// `requests` is left empty.
    mutating func judge(_ requests: inout [PendingRequest], connection: Int, into answers: inout [Answer]) {
        for index in requests.indices {
            let streamID = requests[index].streamID
            switch requests[index].take() {
            case .refused(let refusal, let apnsID):
                answers.append(refuse(streamID, refusal, apnsID: apnsID))
            case .valid(let request):
                if judgesByFaults, let answer = faultAnswer(for: request, streamID: streamID) {
                    answers.append(answer)
                    continue
                }
                records.append(request, connection: connection)
                answers.append(Answer(streamID: streamID, apnsID: request.apnsID))
            case .broadcast(let request):
                answers.append(answer(streamID, judge(request, connection: connection)))
            case .broadcastRefused(let response):
                answers.append(answer(streamID, response))
            }
        }
        requests.removeAll(keepingCapacity: true)
    }

    /// The summary so far: the counters, with the accepted (each answered 200, counted
    /// here rather than in a table on the way) and the server's `counters` (failed
    /// handshakes, connections closed by the limits) folded in, each kind on its own.
    func currentSummary(counters: ServerCounters) -> HTTP2MockGateway.Summary {
        var current = summary
        current.accepted = records.count
        current.broadcasts = broadcasts.count
        if records.count > 0 { current.statuses[200, default: 0] += records.count }
        current.handshakeFailures = counters.handshakeFailures
        current.refusedConnections = current.alpnRefusals + counters.handshakeFailures
        current.connectionsOverLimit = counters.overLimit
        current.threadStartFailures = counters.threadStartFailures
        current.idleTimeouts = counters.idleTimeouts
        current.discardedRecords = records.blocks.firstKept
        return current
    }

    /// The records at `range` (0-based positions in acceptance order), as public values.
    func records(in range: Range<Int>) -> [HTTP2MockGateway.Record] {
        records.records(in: range)
    }

    func copyRecords(_ range: Range<Int>, into copy: inout HTTP2RecordStore.Copy) {
        records.copy(range, into: &copy)
    }

    /// The answer an answer fault gives `request`, if one applies (the first that does, in
    /// the order ``HTTP2MockGateway/Faults`` documents).
    private mutating func faultAnswer(for request: ValidatedRequest, streamID: Int32) -> Answer? {
        if !faults.rejectedTokens.isEmpty || !faults.unregisteredTokens.isEmpty {
            let token = request.token
            if let refusal = faults.rejectedTokens[token] {
                return refuse(streamID, refusal, apnsID: request.apnsID)
            }
            if let since = faults.unregisteredTokens[token] {
                var answer = refuse(streamID, HTTP2MockGateway.Refusal(reason: .unregistered), apnsID: request.apnsID)
                answer.timestamp = since
                return answer
            }
        }
        if faults.failingRequests > 0 {
            faults.failingRequests -= 1
            return refuse(streamID, HTTP2MockGateway.Refusal(reason: faults.failingReason), apnsID: request.apnsID)
        }
        if faults.throttledRequests > 0 && records.count >= faults.throttleAfterAccepting {
            faults.throttledRequests -= 1
            return refuse(streamID, HTTP2MockGateway.Refusal(reason: .tooManyRequests), apnsID: request.apnsID)
        }
        return nil
    }

    /// The answer to a validated broadcast or channel management request: the faults first
    /// (``HTTP2MockGateway/Faults/broadcastDisabled``, then ``HTTP2MockGateway/Faults/failingRequests``
    /// and ``HTTP2MockGateway/Faults/throttledRequests`` as for device requests), then the
    /// channels; an accepted broadcast is recorded.
    private mutating func judge(_ request: BroadcastRequest, connection: Int) -> BroadcastResponse {
        let requestID = request.requestID
        func refuse(_ reason: ProviderReason) -> BroadcastResponse {
            BroadcastResponse(refusal: HTTP2MockGateway.Refusal(reason: reason), requestID: requestID)
        }
        if faults.broadcastDisabled { return refuse(.featureNotEnabled) }
        if faults.failingRequests > 0 {
            faults.failingRequests -= 1
            return refuse(faults.failingReason)
        }
        if faults.throttledRequests > 0 && records.count >= faults.throttleAfterAccepting {
            faults.throttledRequests -= 1
            return refuse(.tooManyRequests)
        }
        switch channels.judge(request.operation, bundleID: request.bundleID) {
        case .refused(let reason):
            return refuse(reason)
        case .created(let id):
            return BroadcastResponse(status: 201, requestID: requestID, extra: [HTTP2Header("apns-channel-id", id)])
        case .channel(let channel):
            return BroadcastResponse(
                status: 200, requestID: requestID,
                json: #"{"message-storage-policy":\#(channel.messageStoragePolicy),"push-type":"#
                    + JSONStringEscaping.quoted(channel.pushType) + "}")
        case .deleted:
            return BroadcastResponse(status: 204, requestID: requestID)
        case .list(let ids):
            return BroadcastResponse(
                status: 200, requestID: requestID,
                json: #"{"channels":["# + ids.map(JSONStringEscaping.quoted).joined(separator: ",") + "]}")
        case .sent:
            guard case .send(let send) = request.operation else { preconditionFailure("sent without a send") }
            let uniqueID = broadcastIDs.next()
            broadcasts.append(HTTP2MockGateway.BroadcastRecord(
                connection: connection, sequence: 0, bundleID: request.bundleID, channelID: send.channelID,
                priority: send.priority, expiration: send.expiration, requestID: requestID, uniqueID: uniqueID,
                payload: send.payload, authentication: request.authentication))
            return BroadcastResponse(
                status: 200, requestID: requestID, extra: [HTTP2Header("apns-unique-id", uniqueID, isIndexable: false)])
        }
    }

    /// The answer carrying `response`, counted in the summary.
    private mutating func answer(_ streamID: Int32, _ response: BroadcastResponse) -> Answer {
        summary.statuses[response.status, default: 0] += 1
        if let reason = response.reason { summary.reasons[reason, default: 0] += 1 }
        var answer = Answer(streamID: streamID, apnsID: .none)
        answer.broadcast = response
        return answer
    }

    private mutating func refuse(_ streamID: Int32, _ refusal: HTTP2MockGateway.Refusal, apnsID: AnswerID) -> Answer {
        summary.statuses[refusal.status, default: 0] += 1
        summary.reasons[refusal.reason, default: 0] += 1
        return Answer(streamID: streamID, apnsID: apnsID, refusal: refusal)
    }
}

/// A request a connection has read and validated, waiting to be judged.
struct PendingRequest {
    let streamID: Int32
    /// Set once validation is done (``HTTP2Ledger/judge(_:connection:into:)`` takes it).
    var verdict: RequestVerdict?

    /// A request on `streamID`, its verdict still to come: set in place in the array that
    /// holds it. Built whole and appended, a pending request was copied into the array.
    init(streamID: Int32) {
        self.streamID = streamID
    }

    /// Moves the verdict out (so a valid request's payload is not copied on its way to the
    /// records).
    mutating func take() -> RequestVerdict {
        var taken: RequestVerdict?
        swap(&taken, &verdict)  // a move: `defer { verdict = nil }` copied the verdict and destroyed it
        return taken!
    }
}

/// What validation made of a request.
enum RequestVerdict {
    /// Valid: the answer faults decide.
    case valid(ValidatedRequest)
    /// Refused, answered with this `apns-id`.
    case refused(HTTP2MockGateway.Refusal, apnsID: AnswerID)
    /// A broadcast or channel management request: the channels and the faults decide.
    case broadcast(BroadcastRequest)
    /// A broadcast or channel management request refused by validation.
    case broadcastRefused(BroadcastResponse)
}

/// One answer to send: 200, or a refusal with its JSON body.
struct Answer {
    var streamID: Int32
    var apnsID: AnswerID
    var refusal: HTTP2MockGateway.Refusal?
    /// For 410 `Unregistered`: since when the token is inactive.
    var timestamp: Date?
    /// The whole answer to a broadcast or channel management request (then ``apnsID`` and
    /// ``refusal`` are unused).
    var broadcast: BroadcastResponse?

    init(streamID: Int32, apnsID: AnswerID, refusal: HTTP2MockGateway.Refusal? = nil) {
        self.streamID = streamID
        self.apnsID = apnsID
        self.refusal = refusal
    }
}
