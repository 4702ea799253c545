import APNSupport

/// Writes each message at its level or above as one line on standard error:
/// `swift-apn.connection: WARNING: TLS peer verification is off … peer=host:2195` (label,
/// level in capitals, message, then the metadata as `key=value` in key order). The default
/// ``APNLogHandler`` of every client, at ``APNLogLevel/warning``.
///
/// ```swift
/// options.logHandler = StandardErrorLogHandler(level: .debug)   // sockets, attempts, visits too
/// ```
public struct StandardErrorLogHandler: APNLogHandler {
    /// The least severe level written.
    public var logLevel: APNLogLevel

    /// A handler writing messages at `level` or above (``APNLogLevel/warning`` by default:
    /// only what weakens security, as before there was a log).
    public init(level: APNLogLevel = .warning) {
        logLevel = level
    }

    /// Writes the line with one `write(2)` (so lines from several threads do not mix).
    public func log(
        level: APNLogLevel, message: String, metadata: APNLogMetadata, label: String, file: String, function: String,
        line: UInt
    ) {
        StandardError.write(Self.line(level: level, message: message, metadata: metadata, label: label))
    }

    /// The line written, newline included.
    package static func line(level: APNLogLevel, message: String, metadata: APNLogMetadata, label: String) -> String {
        var text = "\(label): \(level.rawValue.uppercased()): \(message)"
        for key in metadata.keys.sorted() { text += " \(key)=\(metadata[key]!)" }
        return text + "\n"
    }
}
