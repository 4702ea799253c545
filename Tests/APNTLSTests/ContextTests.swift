import APNTestSupport
import APNTestTraits
import APNTLS
import Testing

/// Context options refused before any connection is made.
@Suite(.threadPerTest) struct ContextTests {
    @Test func requiringClientCertificatesNeedsAnAuthority() throws {
        let fixture = try Fixture()
        let error = #expect(throws: TLSError.self) {
            try TLSServerContext(credentials: fixture.server.credentials(), clientCertificateAuthorities: [])
        }
        #expect(error?.kind == .configuration)
    }

    @Test func maximumBelowMinimumIsRefused() throws {
        let error = #expect(throws: TLSError.self) {
            try TLSClientContext(minimumVersion: .tls1_3, maximumVersion: .tls1_2)
        }
        #expect(error?.kind == .configuration)
    }

    @Test func errorDescriptionNamesKindContextAndEvidence() {
        let error = TLSError(
            .verify, "TLS handshake with 127.0.0.1:1",
            openSSLErrors: ["error:0A000086:SSL routines::certificate verify failed"],
            verifyResult: .init(code: 62, message: "hostname mismatch"))
        #expect(error.description.hasPrefix("TLS verify failed: TLS handshake with 127.0.0.1:1"))
        #expect(error.description.contains("code 62: hostname mismatch"))
        #expect(error.description.contains("certificate verify failed"))
    }
}
