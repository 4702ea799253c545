/// A part of swift-apn's log: a handler and the label its messages carry. Checks the
/// handler's level before building a message, so a message nobody wants costs a comparison.
@_spi(APNBridge) public struct ComponentLog: Sendable {
    /// Where the messages go.
    public let handler: any APNLogHandler
    /// The label of every message (`swift-apn.connection` …).
    public let label: String

    /// The log of `label`, into `handler`.
    public init(_ handler: any APNLogHandler, label: String) {
        self.handler = handler
        self.label = label
    }

    /// Whether a message at `level` would be taken.
    public func wants(_ level: APNLogLevel) -> Bool {
        level >= handler.logLevel
    }

    /// Logs `message` at `level` when the handler takes that level.
    public func callAsFunction(
        _ level: APNLogLevel, _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> APNLogMetadata = [:],
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard wants(level) else { return }
        handler.log(
            level: level, message: message(), metadata: metadata(), label: label, file: file, function: function,
            line: line)
    }

    /// The labels swift-apn's parts log under.
    public enum Label {
        static let connection = "swift-apn.connection"
        static let feedback = "swift-apn.feedback"
        static let provider = "swift-apn.provider"
        public static let bridge = "swift-apn.bridge"
    }
}
