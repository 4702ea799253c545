import APNTLS
import Foundation
import APNMockGateway

extension CertificateFiles {
    /// Points a mock gateway's configuration at `directory`'s server.pem, server.key and
    /// ca.pem (the CA client certificates must come from).
    static func configureServer(_ configuration: inout MockGateway.Configuration, from directory: String) throws {
        let path = { (name: String) in PathText.join(directory, name) }
        let authority = try TLSCertificate.certificates(fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: path("ca.pem")))))
        configuration.serverCredentials = try TLSCredentials(certificateFile: path("server.pem"), keyFile: path("server.key"))
        configuration.clientCertificateAuthorities = authority
    }
}
