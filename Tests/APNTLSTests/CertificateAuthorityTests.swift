import APNTestSupport
import APNTestTraits
import APNTLS
import Foundation
import Testing

/// Certificates generated through OpenSSL in Swift: names, extensions, validity, PEM export.
@Suite(.threadPerTest) struct CertificateAuthorityTests {
    @Test func serverCertificateIsSignedForLoopbackNames() throws {
        let authority = try CertificateAuthority()
        let issued = try authority.issueServerCertificate()
        #expect(issued.certificate.subject == "CN=localhost")
        #expect(issued.issuer.subject.contains("CN=swift-apn Test CA"))
        #expect(issued.certificate.hasExtension(oid: "2.5.29.17"))  // subjectAltName
        #expect(!issued.certificate.isExpired)
        #expect(issued.certificate.notAfter > Date())
        #expect(issued.certificate.notAfter < Date().addingTimeInterval(2 * 86_400))
    }

    @Test(arguments: [KeyType.p256, .rsa2048])
    func clientCertificateLooksLikeApples(keyType: KeyType) throws {
        let authority = try CertificateAuthority(keyType: keyType)
        let issued = try authority.issueClientCertificate(topic: "com.example.app", keyType: keyType)
        #expect(issued.certificate.subject.contains("CN=Apple Push Services: com.example.app"))
        #expect(issued.certificate.subject.contains("UID=com.example.app"))
        #expect(issued.certificate.hasExtension(oid: PushEnvironment.sandbox.oid))
        #expect(issued.certificate.hasExtension(oid: PushEnvironment.production.oid))
    }

    @Test func clientCertificateCarriesOnlyTheAskedEnvironment() throws {
        let issued = try CertificateAuthority().issueClientCertificate(topic: "t", environments: [.sandbox])
        #expect(issued.certificate.hasExtension(oid: PushEnvironment.sandbox.oid))
        #expect(!issued.certificate.hasExtension(oid: PushEnvironment.production.oid))
    }

    @Test func expiredValidityIsInThePast() throws {
        let issued = try CertificateAuthority().issueServerCertificate(validity: .expired)
        #expect(issued.certificate.isExpired)
        #expect(issued.certificate.notAfter < Date())
    }

    @Test func pemRoundTrip() throws {
        let issued = try CertificateAuthority().issueServerCertificate()
        let certificatePEM = try issued.certificate.pem()
        let keyPEM = try issued.privateKey.pem()
        #expect(certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(keyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let credentials = try TLSCredentials(
            certificatePEM: Array((certificatePEM + (try issued.issuer.pem())).utf8), keyPEM: Array(keyPEM.utf8))
        #expect(credentials.certificate.subject == "CN=localhost")
        #expect(credentials.chain.count == 1)
    }
}
