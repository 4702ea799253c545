import APN
import APNTLS
import APNMockGateway

/// A push client certificate issued by a MockGateway's CA, and that CA, as credential
/// sources for `Connection.Options` and `Feedback.Options`.
struct MockCredentials {
    let cert: CredentialSource
    let key: CredentialSource
    let ca: [CredentialSource]

    init(_ gateway: MockGateway) throws {
        let client = try gateway.certificateAuthority.issueClientCertificate(topic: "com.example.bench")
        cert = .data(Array(try client.certificate.pem().utf8))
        key = .data(Array(try client.privateKey.pem().utf8))
        ca = [.data(Array(try gateway.certificateAuthority.certificate.pem().utf8))]
    }
}
