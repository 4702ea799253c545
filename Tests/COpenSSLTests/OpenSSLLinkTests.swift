import COpenSSL
import Testing

/// Proves the system library target resolves through pkg-config and links: the headers
/// and the library CI installed from libssl-dev are both OpenSSL 3.
@Suite struct OpenSSLLinkTests {
    @Test func linksOpenSSL3() {
        #expect(capn_openssl_version_major() == 3)
        #expect(capn_openssl_header_version_number() >> 28 == 3)
    }

    @Test func reportsAVersionString() throws {
        let version = try #require(OpenSSL_version(Int32(OPENSSL_VERSION)))
        #expect(String(cString: version).hasPrefix("OpenSSL 3."))
    }
}
