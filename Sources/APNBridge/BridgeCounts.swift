public import APNWire

/// What a bridge did, counted per tenant and summed in ``Bridge/Summary``.
public struct BridgeCounts: Sendable, Hashable {
    /// Notifications decoded and taken by a session (given an ordinal).
    public var received = 0
    /// Sent upstream.
    public var forwarded = 0
    /// Answered 200 (or 410: accepted, with a feedback tuple) upstream.
    public var delivered = 0
    /// Refused, by the binary status the client is told: Apple's refusals and the
    /// decoder's own.
    public var refused: [StatusCode: Int] = [:]
    /// Refused upstream, by Apple's reason (`BadDeviceToken`, …): what ``refused`` counts
    /// as statuses, before the mapping. The decoder's own refusals have no reason.
    public var refusedByReason: [String: Int] = [:]
    /// Of ``refused``, those refused as they arrived because the upstream had answered
    /// `BadDeviceToken` for their token before: never forwarded (``KnownBadTokens``).
    public var refusedKnownBad = 0
    /// Answered `bridgeFailure` upstream (the client is told status 10).
    public var bridgeFailures = 0
    /// Answered with an unknown fate upstream (the client sees them accepted).
    public var maybeDelivered = 0
    /// Resends answered from the ``ResendRecord`` rather than forwarded again: every
    /// notification received is either forwarded or answered so.
    public var resendsAnswered: Int { received - forwarded }
    /// Of ``forwarded``, notifications an earlier bridge on the same store read and never
    /// wrote upstream (it was killed, or stopped after its client left), forwarded at the start.
    public var recovered = 0
    /// Notifications an earlier bridge on the same store may have written upstream but saw
    /// no answer for (it was killed): never forwarded again, counted here at the start.
    public var maybeDeliveredBeforeStart = 0
    /// Handed upstream (or left to be, in the journal) and not answered yet: forwarded and
    /// recovered, less every answer that came back.
    public var inFlight: Int {
        let answered = delivered + refusedByReason.values.reduce(0, +) + bridgeFailures + maybeDelivered
        return max(0, forwarded + recovered - answered)
    }
    /// Client connections opened.
    public var connections = 0
    /// Of those, opened while the upstream backed off, so held before reading.
    public var heldConnections = 0
    /// Refusals whose error response was followed by a collection (rule 9 of the
    /// session): how many, and their refusal distances' sum and largest — how many
    /// notifications a client had written after the refused one. A legacy client resends
    /// from its cache (node-apn's holds 1,000), so the largest should stay well inside it.
    public var refusalDistances = 0
    /// The sum of the refusal distances counted in ``refusalDistances``.
    public var refusalDistanceSum = 0
    /// The largest refusal distance.
    public var refusalDistanceMax = 0
    /// The refusal distances counted in ``refusalDistances``, in buckets.
    public var refusalDistance = BridgeHistogram(bounds: BridgeHistogram.refusalDistanceNotifications)
    /// How long the upstream took to answer, from the hand-off to its provider to the
    /// answer (the provider's queue included), in seconds: every answer but those the stop
    /// withdrew.
    public var upstreamRequestDuration = BridgeHistogram(bounds: BridgeHistogram.upstreamSeconds)

    /// Nothing counted.
    public init() {}

    /// Adds `other`'s counts to these.
    public mutating func add(_ other: BridgeCounts) {
        received += other.received
        forwarded += other.forwarded
        delivered += other.delivered
        refused.merge(other.refused, uniquingKeysWith: +)
        refusedKnownBad += other.refusedKnownBad
        refusedByReason.merge(other.refusedByReason, uniquingKeysWith: +)
        bridgeFailures += other.bridgeFailures
        maybeDelivered += other.maybeDelivered
        recovered += other.recovered
        maybeDeliveredBeforeStart += other.maybeDeliveredBeforeStart
        connections += other.connections
        heldConnections += other.heldConnections
        refusalDistances += other.refusalDistances
        refusalDistanceSum += other.refusalDistanceSum
        refusalDistanceMax = max(refusalDistanceMax, other.refusalDistanceMax)
        refusalDistance.add(other.refusalDistance)
        upstreamRequestDuration.add(other.upstreamRequestDuration)
    }

    /// Counts one refusal distance.
    mutating func countRefusalDistance(_ notifications: Int) {
        refusalDistances += 1
        refusalDistanceSum += notifications
        refusalDistanceMax = max(refusalDistanceMax, notifications)
        refusalDistance.observe(Double(notifications))
    }

    /// Counts one answer from upstream, refused for `reason`.
    mutating func count(_ answer: BridgeAnswer, reason: String? = nil) {
        switch answer {
        case .accepted, .unregistered: delivered += 1
        case .refused(let status):
            refused[status, default: 0] += 1
            if let reason { refusedByReason[reason, default: 0] += 1 }
        case .bridgeFailure: bridgeFailures += 1
        case .maybeDelivered: maybeDelivered += 1
        }
    }
}
