/// ``GatewaySession`` over a record class of APN's own, for `apn-bench session`. The session
/// is generic over its caller's record, and generic code called from another module runs
/// unspecialized (metadata passed, witnesses called): measured from `apn-bench` directly it
/// cost 8× the instructions a `Connection` pays, which specializes it for `PushRecord` inside
/// APN. Every call here is concrete and compiled in APN, so the optimizer specializes the
/// session as it does for a connection, and the benchmark measures what a `Connection` runs.
package struct MeasuredGatewaySession: ~Copyable {
    /// Stands for a connection's per-push record.
    package final class Record: Sendable {
        /// A record.
        package init() {}
    }

    private var session: GatewaySession<Record>

    /// A session with `configuration`.
    package init(configuration: SessionConfiguration) {
        session = GatewaySession(configuration: configuration)
    }

    /// ``GatewaySession/nextAction()``.
    package mutating func nextAction() -> SessionAction<Record>? { session.nextAction() }

    /// ``GatewaySession/push(_:token:payload:expiry:priority:retryLimit:awaited:now:)`` with the defaults.
    package mutating func push(_ record: consuming Record, token: consuming [UInt8], payload: consuming [UInt8], now: Timestamp) {
        session.push(SessionTag(record), token: consume token, payload: consume payload, now: now)
    }

    /// ``GatewaySession/connected(now:)``.
    package mutating func connected(now: Timestamp) { session.connected(now: now) }

    /// ``GatewaySession/closed(error:now:)`` without an error.
    package mutating func closed(now: Timestamp) { session.closed(error: nil, now: now) }

    /// ``GatewaySession/bytesWritten(_:now:)`` of everything the session has to write.
    package mutating func writeAll(now: Timestamp) { session.bytesWritten(session.outboundBytes.readableBytes, now: now) }

    /// Whether the session has bytes to write.
    package var hasOutboundBytes: Bool { !session.outboundBytes.isEmpty }

    /// ``GatewaySession/bytesReceived(_:now:)``.
    package mutating func bytesReceived(_ bytes: [UInt8], now: Timestamp) { session.bytesReceived(bytes, now: now) }

    /// ``GatewaySession/tick(now:)``.
    package mutating func tick(now: Timestamp) { session.tick(now: now) }

    /// ``GatewaySession/shutdown(now:)``.
    package mutating func shutdown(now: Timestamp) { session.shutdown(now: now) }

    /// ``GatewaySession/unresolvedCount``.
    package var unresolvedCount: Int { session.unresolvedCount }

    /// ``GatewaySession/entryFootprint``.
    package static var entryFootprint: Int { GatewaySession<Record>.entryFootprint }
}
