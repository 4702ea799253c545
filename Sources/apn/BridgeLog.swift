import APNSupport
import APNBridge
import APNWire
import Foundation

/// The JSON lines of `apn bridge`: its log on standard error (one ``BridgeEvent`` a line,
/// with the time), and its summary on standard output. Nothing here ever holds a token, a
/// payload, a key or a passphrase: ``BridgeEvent`` carries none.
enum BridgeLog {
    /// The log line for `event`: `{"time":…,"event":…,…}`.
    static func line(_ event: BridgeEvent) -> JSONValue {
        var fields: [(String, JSONValue)]
        switch event {
        case .connectionOpened(let tenant, let connection):
            fields = [("event", .string("connection_opened")), ("tenant", .string(tenant)), ("connection", .integer(Int(connection)))]
        case .connectionHeld(let tenant, let connection, let held):
            fields = [
                ("event", .string("connection_held")), ("tenant", .string(tenant)), ("connection", .integer(Int(connection))),
                ("held_ms", .integer(milliseconds(held))),
            ]
        case .connectionRefused(let tenant, let why):
            fields = [("event", .string("connection_refused")), ("reason", .string(why.rawValue))]
            if let tenant { fields.append(("tenant", .string(tenant))) }
        case .connectionClosed(let tenant, let connection):
            fields = [("event", .string("connection_closed")), ("tenant", .string(tenant)), ("connection", .integer(Int(connection)))]
        case .errorResponse(let tenant, let connection, let status, let identifier):
            fields = [
                ("event", .string("error_response")), ("tenant", .string(tenant)), ("connection", .integer(Int(connection))),
                ("status", .integer(Int(status.rawValue))), ("identifier", .integer(Int(identifier))),
            ]
        case .refusalDistance(let tenant, let connection, let notifications):
            fields = [
                ("event", .string("refusal_distance")), ("tenant", .string(tenant)), ("connection", .integer(Int(connection))),
                ("notifications", .integer(notifications)),
            ]
        case .upstreamFailed(let tenant, let reason, let backoff):
            fields = [
                ("event", .string("upstream_failed")), ("tenant", .string(tenant)), ("reason", .string(reason)),
                ("backoff_ms", .integer(milliseconds(backoff))),
            ]
        case .upstreamRecovered(let tenant):
            fields = [("event", .string("upstream_recovered")), ("tenant", .string(tenant))]
        case .feedbackStoreFailed(let error, let waiting):
            fields = [("event", .string("feedback_store_failed")), ("error", .string(error)), ("waiting", .integer(waiting))]
        case .feedbackStoreRecovered:
            fields = [("event", .string("feedback_store_recovered"))]
        case .bridgesTakenOver(let instances, let recovered):
            fields = [
                ("event", .string("bridges_taken_over")), ("instances", .integer(instances)), ("recovered", .integer(recovered)),
            ]
        case .recordNotWritten(let tenant):
            fields = [("event", .string("record_not_written")), ("tenant", .string(tenant))]
        case .storeLockLost(let error):
            fields = [("level", .string("error")), ("event", .string("store_lock_lost")), ("error", .string(error))]
        }
        return .object([("time", .string(timestamp()))] + fields)
    }

    /// The log line once listening.
    static func started(upstream: String, tenants: [String], store: String?) -> JSONValue {
        .object([
            ("time", .string(timestamp())), ("event", .string("started")), ("upstream", .string(upstream)),
            ("tenants", .array(tenants.map { .string($0) })), ("store", store.map { .string($0) } ?? .null),
        ])
    }

    /// The log line at SIGINT/SIGTERM.
    static func stopping(grace: Duration) -> JSONValue {
        .object([("time", .string(timestamp())), ("event", .string("stopping")), ("grace_ms", .integer(milliseconds(grace)))])
    }

    /// The log line when a bridge that lost its store ends (#41): how many notifications it
    /// read and could not journal (lost with the process).
    static func abandoned(unjournaled: Int) -> JSONValue {
        .object([
            ("time", .string(timestamp())), ("level", .string("error")), ("event", .string("abandoned")),
            ("unjournaled", .integer(unjournaled)),
        ])
    }

    /// The summary line: the sums, then each tenant's counts.
    static func summary(_ summary: Bridge.Summary) -> JSONValue {
        .object(
            counts(summary.counts) + [
                ("feedback_stored", .integer(summary.feedbackStored)),
                ("feedback_served", .integer(summary.feedbackServed)),
                ("feedback_lost", .integer(summary.feedbackLost)),
                ("refused_connections", .integer(summary.refusedConnections)),
                ("unfinished_sessions", .integer(summary.unfinishedSessions)),
                ("tenants", .object(summary.byTenant.keys.sorted().map { ($0, .object(counts(summary.byTenant[$0]!))) })),
            ])
    }

    private static func counts(_ counts: BridgeCounts) -> [(String, JSONValue)] {
        [
            ("received", .integer(counts.received)),
            ("forwarded", .integer(counts.forwarded)),
            ("delivered", .integer(counts.delivered)),
            ("refused", .object(counts.refused.keys.sorted { $0.rawValue < $1.rawValue }.map {
                (String($0.rawValue), .integer(counts.refused[$0]!))
            })),
            ("refused_reasons", .object(counts.refusedByReason.keys.sorted().map { ($0, .integer(counts.refusedByReason[$0]!)) })),
            ("refused_known_bad", .integer(counts.refusedKnownBad)),
            ("bridge_failures", .integer(counts.bridgeFailures)),
            ("maybe_delivered", .integer(counts.maybeDelivered)),
            ("resends_answered", .integer(counts.resendsAnswered)),
            ("recovered", .integer(counts.recovered)),
            ("maybe_delivered_before_start", .integer(counts.maybeDeliveredBeforeStart)),
            ("connections", .integer(counts.connections)),
            ("held_connections", .integer(counts.heldConnections)),
            ("refusal_distance_max", .integer(counts.refusalDistanceMax)),
        ]
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        duration.wholeNanoseconds / 1_000_000
    }

    /// Now, as the other commands write times (`FeedbackCommand/isoDate(_:)`).
    static func timestamp() -> String {
        FeedbackCommand.isoDate(Date())
    }
}
