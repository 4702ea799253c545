@testable import apn
import Synchronization
import Testing

/// #42: a certificate that expires within 30 days is told at once, then daily; a reload's
/// new certificate is a new one.
@Suite struct CertificateExpiryWatchTests {
    static let day = 86_400.0

    @Test func toldWithin30DaysThenOnceADay() {
        var warnings = ExpiryWarnings()
        let now = 1_800_000_000.0
        let soon = CertificateExpiry(name: "server", notAfter: now + 10 * Self.day + 60)
        let later = CertificateExpiry(name: "tenant:app", notAfter: now + 90 * Self.day)
        let due = warnings.due([soon, later], now: now)
        #expect(due.map(\.certificate.name) == ["server"] && due.map(\.days) == [10])
        #expect(warnings.due([soon, later], now: now + 3_600).isEmpty, "an hour later: not again")
        #expect(warnings.due([soon, later], now: now + Self.day).map(\.days) == [9], "a day later: again")
        #expect(warnings.due([soon], now: now + 11 * Self.day).map(\.days) == [-1], "expired: still told, daily")
    }

    @Test func aReplacedCertificateIsToldAtOnce() {
        var warnings = ExpiryWarnings()
        let now = 1_800_000_000.0
        #expect(warnings.due([CertificateExpiry(name: "server", notAfter: now + 5 * Self.day)], now: now).count == 1)
        let renewed = CertificateExpiry(name: "server", notAfter: now + 20 * Self.day)
        #expect(warnings.due([renewed], now: now + 60).map(\.days) == [19])
        #expect(warnings.due([CertificateExpiry(name: "server", notAfter: now + 400 * Self.day)], now: now + 120).isEmpty)
    }

    @Test func theLineIsAWarningNamingTheCertificateNotItsContent() {
        let lines = Mutex<[String]>([])
        let watch = CertificateExpiryWatch(
            certificates: { [CertificateExpiry(name: "client_ca_0", notAfter: 1_000 + 2 * Self.day)] },
            log: { line in lines.withLock { $0.append(line) } })
        watch.check(now: 1_000)
        watch.check(now: 2_000)
        #expect(
            lines.withLock { $0 }
                == [
                    #"{"time":"1970-01-01T00:16:40Z","level":"warning","event":"certificate_expiring","certificate":"client_ca_0","days":2}"#
                ])
    }
}
