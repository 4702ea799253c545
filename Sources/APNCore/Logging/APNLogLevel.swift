/// How severe a log message is: swift-log's seven `Logger.Level`s, with the same names and
/// raw values, least severe first, so an adapter maps one onto the other by raw value.
///
/// swift-apn reports what happens to notifications through outcomes, `errorCallback` and
/// events; its log repeats connection-level happenings for operators, at ``notice`` and
/// below, and uses ``warning`` only for a setting that weakens security (peer verification
/// off). So the default handler, at ``warning``, prints what swift-apn printed before it
/// had a log: that one warning.
public enum APNLogLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Finer than debug (nothing in swift-apn logs at this level today).
    case trace
    /// What a developer follows: sockets opened and closed, partial feedback tuples.
    case debug
    /// Routine events: a feedback visit's entries, a provider token renewed.
    case info
    /// A failure swift-apn handles itself or reports to its caller: a lost connection, an
    /// attempt that failed, a client that gave up (its outcomes and error event say so too).
    case notice
    /// A setting that weakens the guarantees: TLS peer verification off.
    case warning
    /// Not used by swift-apn (a client that gives up logs at ``notice``: its caller is told).
    case error
    /// Not used by swift-apn.
    case critical

    /// Orders by severity: `trace < debug < … < critical`.
    public static func < (lhs: APNLogLevel, rhs: APNLogLevel) -> Bool {
        lhs.severity < rhs.severity
    }

    private var severity: Int {
        Self.allCases.firstIndex(of: self)!
    }
}
