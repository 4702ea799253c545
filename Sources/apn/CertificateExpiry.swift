import APNAdmin
import APN
import APNTLS
import Foundation

/// A certificate a command uses, by the name its metric label gives it, and when it expires
/// (UNIX seconds): the `apn_certificate_expiry_timestamp_seconds` gauge every admin listener
/// exports, so one alert rule (`… - time() < 30 * 86400`) watches every command.
struct CertificateExpiry: Sendable {
    /// The `certificate` label: `server`, `client`, `client_ca_0`, `tenant:NAME`.
    let name: String
    let notAfter: Double

    /// The client certificate of `access` (`--cert`, or the first of `--pfx`), if it names
    /// one that can be read; nil otherwise: the command fails on it at its first connection,
    /// which is where that is told, not in a metric.
    static func client(of access: ServiceAccess) -> CertificateExpiry? {
        let certificate: TLSCertificate?
        if case .file(let path)? = access.pfx {
            certificate = (try? TLSCredentials(pkcs12: FileBytes.read(path), password: access.passphrase, allowsExpired: true))?.certificate
        } else if case .file(let path)? = access.cert {
            certificate = (try? TLSCertificate.certificates(fromPEMOrDER: FileBytes.read(path)))?.first
        } else {
            certificate = nil
        }
        return certificate.map { CertificateExpiry(name: "client", notAfter: $0.notAfter.timeIntervalSince1970) }
    }
}

extension PrometheusText {
    /// Appends `apn_certificate_expiry_timestamp_seconds`, one sample per certificate.
    mutating func certificateExpiry(_ certificates: [CertificateExpiry]) {
        family(
            "apn_certificate_expiry_timestamp_seconds", .gauge, help: "When each certificate the process uses expires.",
            certificates.map { ([("certificate", $0.name)], $0.notAfter) })
    }
}
