import APN
import APNFeedbackService
import APNSupport
import Foundation
import Synchronization

/// What SIGHUP does to `apn feedback-service` (#42): new credentials handed to the
/// service for its next visit (``FeedbackService/useFeedback(_:)``); runs on the reload
/// queue (``HangupSignals``).
final class FeedbackServiceReload: Sendable {
    /// What the service started with: a reload names what it cannot change.
    private let settings: FeedbackServiceCommand.Settings
    private let service: FeedbackService
    /// The credentials in use, for the certificate's expiry.
    private let access: Lock<ServiceAccess>

    init(_ settings: FeedbackServiceCommand.Settings, service: FeedbackService) {
        self.settings = settings
        self.service = service
        access = Lock(settings.feedback.access)
    }

    /// The push certificate in use and when it expires, if it can be read.
    var certificates: [CertificateExpiry] {
        [CertificateExpiry.client(of: access.withLock { $0 })].compactMap { $0 }
    }

    /// At SIGHUP: the command line and its configuration file read again; new credentials
    /// are checked and used from the next visit (one under way finishes with the old). One
    /// log line: `reloaded` (with the settings that need a restart) or `reload_refused`.
    func reload(_ flags: Flags) {
        let new: FeedbackServiceCommand.Settings
        do {
            new = try FeedbackServiceCommand.parse(flags)
            try Feedback.checkCredentials(new.feedback)
        } catch let error as UsageError {
            return LineWriter.stderr(Self.reloadLine("reload_refused", [("reason", .string(error.message))]).text)
        } catch {
            return LineWriter.stderr(Self.reloadLine("reload_refused", [("reason", .string(ErrorText.of(error)))]).text)
        }
        service.useFeedback(new.feedback)
        access.withLock { $0 = new.feedback.access }
        var restart: [String] = []
        if new.store != settings.store { restart.append("store") }
        if new.interval != settings.interval { restart.append("interval") }
        if new.batchSize != settings.batchSize { restart.append("batch_size") }
        if new.minimumFreeBytes != settings.minimumFreeBytes { restart.append("min_free") }
        if new.admin.map({ "\($0.host):\($0.port)" }) != settings.admin.map({ "\($0.host):\($0.port)" }) {
            restart.append("admin")
        }
        LineWriter.stderr(
            Self.reloadLine("reloaded", [("needs_restart", .array(restart.map(JSONValue.string)))]).text)
    }

    private static func reloadLine(_ event: String, _ rest: [(String, JSONValue)]) -> JSONValue {
        .object([("event", .string(event)), ("time", .integer(Int(Date().timeIntervalSince1970)))] + rest)
    }

}
