import Dispatch
import Foundation
import Synchronization
import APNSupport

/// Which certificates to warn about, and when (#42): one that expires within
/// ``window`` is told at once, then again each ``repeatAfter`` while it does. A certificate
/// replaced by a reload (the same name, another expiry) is a new one. Pure: the time comes in.
struct ExpiryWarnings {
    /// How far ahead an expiry is told: 30 days.
    static let window: Double = 30 * 86_400
    /// How often it is told again: daily.
    static let repeatAfter: Double = 86_400

    /// When each certificate (by name and expiry) was last told.
    private var told: [String: (notAfter: Double, at: Double)] = [:]

    /// The certificates to warn about at `now` (UNIX seconds), with whole days left
    /// (negative once expired); each is then marked told.
    mutating func due(_ certificates: [CertificateExpiry], now: Double) -> [(certificate: CertificateExpiry, days: Int)] {
        var due: [(certificate: CertificateExpiry, days: Int)] = []
        for certificate in certificates where certificate.notAfter - now < Self.window {
            if let last = told[certificate.name], last.notAfter == certificate.notAfter, now - last.at < Self.repeatAfter {
                continue
            }
            told[certificate.name] = (certificate.notAfter, now)
            due.append((certificate, Int(((certificate.notAfter - now) / 86_400).rounded(.down))))
        }
        return due
    }
}

/// Tells standard error, at warning level, of a certificate the process uses that expires
/// within 30 days: at ``start()``, then at each hourly check once a day per certificate
/// (``ExpiryWarnings``), the list read again at each check so a reload's certificates are
/// the ones watched. Never the certificate itself, only its name and the days left.
final class CertificateExpiryWatch: Sendable {
    /// How often the list is checked.
    static let checkInterval: Duration = .seconds(3_600)

    private let certificates: @Sendable () -> [CertificateExpiry]
    private let log: @Sendable (String) -> Void
    private let warnings = Lock(ExpiryWarnings())
    private let stopped = Atomic<Bool>(false)

    /// Watches what `certificates` gives; `log` writes a line (standard error by default).
    init(
        certificates: @escaping @Sendable () -> [CertificateExpiry],
        log: @escaping @Sendable (String) -> Void = { LineWriter.stderr($0) }
    ) {
        self.certificates = certificates
        self.log = log
    }

    /// Checks now, then every ``checkInterval`` until ``stop()``.
    func start() {
        check(now: Date().timeIntervalSince1970)
        scheduleNext()
    }

    /// No more checks (one already scheduled finds it stopped and does nothing).
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
    }

    private func scheduleNext() {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Self.checkInterval.wholeNanoseconds)) { [self] in
            guard !stopped.load(ordering: .sequentiallyConsistent) else { return }
            check(now: Date().timeIntervalSince1970)
            scheduleNext()
        }
    }

    /// Logs what is due at `now`:
    /// `{"time":…,"level":"warning","event":"certificate_expiring","certificate":NAME,"days":N}`.
    func check(now: Double) {
        let list = certificates()
        for (certificate, days) in warnings.withLock({ $0.due(list, now: now) }) {
            log(
                JSONValue.object([
                    ("time", .string(FeedbackCommand.isoDate(Date(timeIntervalSince1970: now)))), ("level", .string("warning")), ("event", .string("certificate_expiring")),
                    ("certificate", .string(certificate.name)), ("days", .integer(days)),
                ]).text)
        }
    }
}
