public import Foundation

/// One device the feedback service reported (`Feedback.Entry` in `APN`): it stopped
/// accepting notifications at ``time``. Drop its token only if it was not registered again
/// after that.
public struct FeedbackEntry: Sendable, Hashable, CustomStringConvertible {
    /// When the device stopped accepting notifications, as UNIX seconds.
    public let unixTime: UInt32
    /// The device (any token length the service sent).
    public let device: Device

    /// Creates an entry.
    public init(unixTime: UInt32, device: Device) {
        self.unixTime = unixTime
        self.device = device
    }

    /// ``unixTime`` as a date.
    public var time: Date { Date(timeIntervalSince1970: TimeInterval(unixTime)) }

    /// `1700000000 a1b2…`.
    public var description: String { "\(unixTime) \(device)" }
}
