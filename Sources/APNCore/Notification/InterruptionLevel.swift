/// The `interruption-level` of a notification (iOS 15 and later).
///
/// A struct rather than an enum so that a level Apple adds later can be sent as it is:
/// `InterruptionLevel(rawValue: "new-level")` keeps the string.
public struct InterruptionLevel: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The string written into the payload.
    public let rawValue: String

    /// Wraps any level string; unknown ones are kept as they are.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A string literal is the raw level.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// `passive`: added to the list without lighting the screen or playing a sound.
    public static let passive = InterruptionLevel(rawValue: "passive")
    /// `active`: the default; presented immediately, may play a sound.
    public static let active = InterruptionLevel(rawValue: "active")
    /// `time-sensitive`: may break through Focus.
    public static let timeSensitive = InterruptionLevel(rawValue: "time-sensitive")
    /// `critical`: breaks through Focus and the mute switch; needs Apple's entitlement.
    public static let critical = InterruptionLevel(rawValue: "critical")
}
