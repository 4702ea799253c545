import APNTestSupport
import APNTestTraits
import APNTLS
import Foundation
import Testing

/// Loading credentials and the typed errors for each way it goes wrong.
@Suite(.threadPerTest) struct CredentialsTests {
    let issued: IssuedCertificate

    init() throws {
        issued = try CertificateAuthority().issueClientCertificate(topic: "com.example.app")
    }

    @Test func encryptedKeyWithPassphrase() throws {
        let keyPEM = try issued.privateKey.pem(passphrase: "correct horse")
        #expect(keyPEM.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        let credentials = try TLSCredentials(
            certificatePEM: Array(try issued.certificate.pem().utf8), keyPEM: Array(keyPEM.utf8),
            passphrase: "correct horse")
        #expect(credentials.certificate.subject.contains("com.example.app"))
    }

    @Test func wrongPassphrase() throws {
        let keyPEM = Array(try issued.privateKey.pem(passphrase: "correct horse").utf8)
        let error = #expect(throws: TLSError.self) { try TLSPrivateKey(pem: keyPEM, passphrase: "battery staple") }
        #expect(error?.kind == .wrongPassphrase)
        #expect(error?.openSSLErrors.isEmpty == false)
    }

    @Test func missingPassphraseNeverPrompts() throws {
        let keyPEM = Array(try issued.privateKey.pem(passphrase: "correct horse").utf8)
        let error = #expect(throws: TLSError.self) { try TLSPrivateKey(pem: keyPEM) }
        #expect(error?.kind == .passphraseRequired)
    }

    @Test func keyOfAnotherCertificate() throws {
        let other = try CertificateAuthority().issueServerCertificate()
        let error = #expect(throws: TLSError.self) {
            try TLSCredentials(certificate: issued.certificate, privateKey: other.privateKey)
        }
        #expect(error?.kind == .keyMismatch)
    }

    @Test func expiredCertificateNamesTheDate() throws {
        let expired = try CertificateAuthority().issueClientCertificate(topic: "t", validity: .expired)
        let error = #expect(throws: TLSError.self) {
            try TLSCredentials(certificate: expired.certificate, privateKey: expired.privateKey)
        }
        #expect(error?.kind == .certificateExpired)
        #expect(error?.date == expired.certificate.notAfter)
        #expect(error?.description.contains("renew") == true)
    }

    @Test func garbageIsUnreadable() {
        let error = #expect(throws: TLSError.self) {
            try TLSCredentials(certificatePEM: Array("not a certificate".utf8), keyPEM: [])
        }
        #expect(error?.kind == .credentials)
    }

    @Test func filesWithPathInErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apntls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("cert.pem").path
        try Data((try issued.certificate.pem() + (try issued.privateKey.pem(passphrase: "pw"))).utf8)
            .write(to: URL(fileURLWithPath: bundle))

        let loaded = try TLSCredentials(certificateFile: bundle, keyFile: bundle, passphrase: "pw")
        #expect(loaded.certificate.subject.contains("com.example.app"))

        let wrong = #expect(throws: TLSError.self) {
            try TLSCredentials(certificateFile: bundle, keyFile: bundle, passphrase: "nope")
        }
        #expect(wrong?.kind == .wrongPassphrase)
        #expect(wrong?.path == bundle)

        let missing = directory.appendingPathComponent("missing.pem").path
        let notFound = #expect(throws: TLSError.self) {
            try TLSCredentials(certificateFile: missing, keyFile: bundle)
        }
        #expect(notFound?.kind == .fileNotFound)
        #expect(notFound?.path == missing)
        #expect(notFound?.errno == ENOENT)
    }
}
