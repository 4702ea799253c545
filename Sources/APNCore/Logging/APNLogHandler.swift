/// Key-value context of a log message (a connection's peer, an attempt's delay …), as
/// swift-log's `Logger.Metadata` with string values.
public typealias APNLogMetadata = [String: String]

/// Where swift-apn's log messages go: one protocol, shaped like swift-log's `LogHandler`
/// (a level threshold and a `log` call with level, message, metadata and source location),
/// set as `logHandler` on ``Connection/Options``, ``Feedback/Options`` and
/// ``Provider/Options``. The default, ``StandardErrorLogHandler`` at
/// ``APNLogLevel/warning``, writes what swift-apn always wrote to standard error.
///
/// Every message carries a `label` naming the part of swift-apn that speaks, as a
/// swift-log `Logger`'s label would: `swift-apn.connection`, `swift-apn.feedback`,
/// `swift-apn.provider`, `swift-apn.bridge`. No message or metadata ever holds a key, a
/// passphrase, a provider token or a device token.
///
/// swift-log users adapt it in a few lines (docs/LIBRARY.md, "Logging"):
///
/// ```swift
/// struct SwiftLogHandler: APNLogHandler {
///     let logger: Logger
///     var logLevel: APNLogLevel { APNLogLevel(rawValue: logger.logLevel.rawValue) ?? .info }
///     func log(…) { logger.log(level: …, "\(message)", metadata: …, source: label, …) }
/// }
/// ```
///
/// Called on swift-apn's own threads (I/O threads among them), never while it holds a
/// lock: keep it quick and do not call back into the client that logs.
public protocol APNLogHandler: Sendable {
    /// The least severe level this handler takes; swift-apn builds no message below it.
    var logLevel: APNLogLevel { get }

    /// Receives one message at ``logLevel`` or above.
    ///
    /// - Parameters:
    ///   - level: how severe it is.
    ///   - message: one line of text, without a newline.
    ///   - metadata: context, as key-value pairs (may be empty).
    ///   - label: the part of swift-apn that speaks (`swift-apn.connection` …).
    ///   - file: the source file that logged (`#fileID`).
    ///   - function: the function that logged.
    ///   - line: the line that logged.
    func log(
        level: APNLogLevel, message: String, metadata: APNLogMetadata, label: String, file: String, function: String,
        line: UInt)
}
