import APNTLS
import Foundation
import APNTestSupport
import APNTestTraits
import Testing

/// How a server names the client certificate it was shown: the DER bytes, their SHA-256
/// fingerprint and the subject's UID (the bundle id on Apple's push certificates), which
/// the bridge maps to a tenant.
@Suite(.threadPerTest, .ownsChildProcesses) struct CertificateIdentityTests {
    @Test func derRoundTripsAndIsWhatTheFingerprintIsTakenOver() throws {
        let issued = try CertificateAuthority().issueClientCertificate(topic: "com.example.app")
        let der = issued.certificate.der
        #expect(der.first == 0x30, "a DER SEQUENCE")
        #expect(try TLSCertificate(der: der).pem() == issued.certificate.pem())
        let fingerprint = issued.certificate.sha256Fingerprint
        #expect(fingerprint.count == 32)
        let text = fingerprint.map { String(format: "%02x", $0) }.joined()
        #expect(text == (try Self.sha256sum(der)), "coreutils' digest of the same bytes")
    }

    /// `sha256sum`'s hex digest of `bytes`: a SHA-256 no one here wrote.
    static func sha256sum(_ bytes: [UInt8]) throws -> String {
        let sha256sum = try ChildProcess("/usr/bin/sha256sum", arguments: [], standardInput: .pipe)
        ChildProcess.writeAll(bytes, to: sha256sum.standardInput!)
        let text = String(decoding: ChildProcess.readToEnd(sha256sum.standardOutput!), as: UTF8.self)
        _ = ChildProcess.readToEnd(sha256sum.standardError!)
        #expect(sha256sum.waitForExit(timeout: .seconds(60)) == .exited(0))
        return String(text.prefix(64))
    }

    @Test func twoCertificatesForOneTopicHaveOneUIDAndTwoFingerprints() throws {
        let authority = try CertificateAuthority()
        let first = try authority.issueClientCertificate(topic: "com.example.app")
        let second = try authority.issueClientCertificate(topic: "com.example.app")
        #expect(first.certificate.subjectUserID == "com.example.app")
        #expect(second.certificate.subjectUserID == "com.example.app")
        #expect(first.certificate.sha256Fingerprint != second.certificate.sha256Fingerprint)
    }

    @Test("the UID as UTF-8, not as RFC 2253's escapes", arguments: ["com.exämple.app", "jp.例え.アプリ", "a,b+c\\d"])
    func userIDIsDecodedFromTheName(topic: String) throws {
        let issued = try CertificateAuthority().issueClientCertificate(topic: topic)
        #expect(issued.certificate.subjectUserID == topic)
    }

    @Test func aCertificateWithoutUIDHasNone() throws {
        let issued = try CertificateAuthority().issueServerCertificate()
        #expect(issued.certificate.subjectUserID == nil)
    }

    @Test func theServerSeesTheClientsFingerprintAndUID() throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(server: try fixture.serverContext(), client: try fixture.clientContext())
        let outcome = pair.handshake()
        #expect(outcome.client.isDone && outcome.server.isDone)
        let peer = try #require(pair.server.peerCertificate)
        #expect(peer.sha256Fingerprint == fixture.client.certificate.sha256Fingerprint)
        #expect(peer.subjectUserID == "com.example.app")
    }
}
