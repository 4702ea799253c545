import APNSupport
package import APN
import APNTLS
import Synchronization

/// Keeps every message swift-apn logs at `logLevel` or above, for tests to read.
package final class CapturingLogHandler: APNLogHandler {
    /// One message as it was logged.
    package struct Entry: Sendable, Hashable, CustomStringConvertible {
        package let level: APNLogLevel
        package let message: String
        package let metadata: APNLogMetadata
        package let label: String

        /// An entry, to compare with what was kept.
        package init(level: APNLogLevel, message: String, metadata: APNLogMetadata, label: String) {
            self.level = level
            self.message = message
            self.metadata = metadata
            self.label = label
        }

        /// `swift-apn.connection debug socket connected ["open_sockets": "1"]`.
        package var description: String { "\(label) \(level) \(message) \(metadata)" }
    }

    package let logLevel: APNLogLevel
    private let kept = Lock<[Entry]>([])

    /// Keeps what is logged at `level` or above (everything by default).
    package init(level: APNLogLevel = .trace) {
        logLevel = level
    }

    package func log(
        level: APNLogLevel, message: String, metadata: APNLogMetadata, label: String, file: String, function: String,
        line: UInt
    ) {
        kept.withLock { $0.append(Entry(level: level, message: message, metadata: metadata, label: label)) }
    }

    /// What was logged so far, in order.
    package var entries: [Entry] { kept.withLock { $0 } }

    /// Whether any message or metadata value holds `text` (to prove a secret never does).
    package func mentions(_ text: String) -> Bool {
        entries.contains { entry in entry.message.contains(text) || entry.metadata.values.contains { $0.contains(text) } }
    }
}
