import Foundation
import Glibc
import APNTestSupport
import APNTestTraits
import Testing

import APNTLS

/// PKCS#12 export and loading (modern and legacy), the push-environment check, and DER input.
@Suite(.threadPerTest) struct PKCS12Tests {
    let fixture: Fixture

    init() throws {
        fixture = try Fixture()
    }

    /// The client certificate with its CA as the chain, so the chain makes the round trip too.
    func clientCredentials() throws -> TLSCredentials {
        try TLSCredentials(
            certificate: fixture.client.certificate, chain: [fixture.authority.certificate],
            privateKey: fixture.client.privateKey)
    }

    @Test(arguments: [false, true])
    func exportThenLoadKeepsCertificateChainAndKey(legacy: Bool) throws {
        let bundle = try clientCredentials().pkcs12(password: "correct horse", legacy: legacy)
        let loaded = try TLSCredentials(pkcs12: bundle, password: "correct horse")
        #expect(loaded.certificate.subject == fixture.client.certificate.subject)
        #expect(try loaded.certificate.pem() == fixture.client.certificate.pem())
        #expect(try loaded.chain.map { try $0.pem() } == [try fixture.authority.certificate.pem()])
        #expect(try loaded.privateKey.pem() == fixture.client.privateKey.pem())
        // The key belongs to the original certificate (the existing match check).
        _ = try TLSCredentials(certificate: fixture.client.certificate, privateKey: loaded.privateKey)
    }

    /// The algorithm identifiers in the DER, pinned as literal bytes: a legacy bundle must
    /// really be RC2-40 + 3DES + SHA-1, a modern one PBES2 + AES-256-CBC + SHA-256.
    @Test(arguments: [false, true])
    func exportUsesTheChosenAlgorithms(legacy: Bool) throws {
        let bundle = try clientCredentials().pkcs12(password: "pw", legacy: legacy)
        let rc2With40BitKey = hex("06 0A 2A 86 48 86 F7 0D 01 0C 01 06")  // 1.2.840.113549.1.12.1.6
        let tripleDES = hex("06 0A 2A 86 48 86 F7 0D 01 0C 01 03")  // 1.2.840.113549.1.12.1.3
        let sha1 = hex("06 05 2B 0E 03 02 1A")  // 1.3.14.3.2.26
        let pbes2 = hex("06 09 2A 86 48 86 F7 0D 01 05 0D")  // 1.2.840.113549.1.5.13
        let aes256CBC = hex("06 09 60 86 48 01 65 03 04 01 2A")  // 2.16.840.1.101.3.4.1.42
        let sha256 = hex("06 09 60 86 48 01 65 03 04 02 01")  // 2.16.840.1.101.3.4.2.1
        for oid in [rc2With40BitKey, tripleDES, sha1] {
            #expect(contains(bundle, oid) == legacy, "\(oid)")
        }
        for oid in [pbes2, aes256CBC, sha256] {
            #expect(contains(bundle, oid) == !legacy, "\(oid)")
        }
    }

    @Test(arguments: [false, true])
    func mutualHandshakeWithCredentialsFromAPKCS12File(legacy: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("client.p12")
        try Data(try clientCredentials().pkcs12(password: "pw", legacy: legacy)).write(to: URL(fileURLWithPath: path))

        let credentials = try TLSCredentials(pkcs12File: path, password: "pw")
        let client = try TLSClientContext(trustedCertificates: [fixture.authority.certificate], credentials: credentials)
        let pair = try LoopbackPair(server: fixture.serverContext(), client: client)
        let outcome = pair.handshake()
        #expect(outcome.client.isDone, "client: \(outcome.client)")
        #expect(outcome.server.isDone, "server: \(outcome.server)")
        #expect(pair.server.peerCertificate?.subject == fixture.client.certificate.subject)
    }

    @Test(arguments: [false, true])
    func wrongPassword(legacy: Bool) throws {
        let bundle = try clientCredentials().pkcs12(password: "correct horse", legacy: legacy)
        let error = #expect(throws: TLSError.self) { try TLSCredentials(pkcs12: bundle, password: "battery staple") }
        #expect(error?.kind == .wrongPassphrase)
        #expect(error?.description.contains("pass the passphrase") == true)
    }

    @Test func missingPassword() throws {
        let bundle = try clientCredentials().pkcs12(password: "correct horse")
        let error = #expect(throws: TLSError.self) { try TLSCredentials(pkcs12: bundle, password: nil) }
        #expect(error?.kind == .passphraseRequired)
    }

    @Test(arguments: [false, true])
    func emptyPasswordBundleLoadsWithoutAPassword(legacy: Bool) throws {
        let bundle = try clientCredentials().pkcs12(password: "", legacy: legacy)
        let loaded = try TLSCredentials(pkcs12: bundle, password: nil)
        #expect(loaded.certificate.subject == fixture.client.certificate.subject)
        #expect(try TLSCredentials(pkcs12: bundle, password: "").chain.count == 1)
    }

    @Test func garbageIsUnreadable() throws {
        let error = #expect(throws: TLSError.self) { try TLSCredentials(pkcs12: Array("not a p12".utf8), password: "pw") }
        #expect(error?.kind == .credentials)
        #expect(error?.openSSLErrors.isEmpty == false)

        let empty = #expect(throws: TLSError.self) { try TLSCredentials(pkcs12: [], password: nil) }
        #expect(empty?.kind == .credentials)

        let bundle = try clientCredentials().pkcs12(password: "pw")
        let truncated = #expect(throws: TLSError.self) {
            try TLSCredentials(pkcs12: Array(bundle.prefix(bundle.count / 2)), password: "pw")
        }
        #expect(truncated?.kind == .credentials)
    }

    @Test func bundleWithoutAKeyOrWithoutACertificate() throws {
        let certificateOnly = try PKCS12Bundle(
            password: "pw", privateKey: nil, certificate: fixture.client.certificate, chain: [], legacy: false
        ).der()
        let noKey = #expect(throws: TLSError.self) { try TLSCredentials(pkcs12: certificateOnly, password: "pw") }
        #expect(noKey?.kind == .credentials)
        #expect(noKey?.context.contains("no private key") == true)

        let keyOnly = try PKCS12Bundle(
            password: "pw", privateKey: fixture.client.privateKey, certificate: nil, chain: [], legacy: false
        ).der()
        let noCertificate = #expect(throws: TLSError.self) { try TLSCredentials(pkcs12: keyOnly, password: "pw") }
        #expect(noCertificate?.kind == .credentials)
        #expect(noCertificate?.context.contains("no certificate") == true)
    }

    @Test func expiredCertificateIsRefusedUnlessAllowed() throws {
        let expired = try fixture.authority.issueClientCertificate(topic: "t", validity: .expired)
        let bundle = try expired.credentials().pkcs12(password: "pw")
        let error = #expect(throws: TLSError.self) { try TLSCredentials(pkcs12: bundle, password: "pw") }
        #expect(error?.kind == .certificateExpired)
        #expect(error?.date == expired.certificate.notAfter)
        _ = try TLSCredentials(pkcs12: bundle, password: "pw", allowsExpired: true)
    }

    @Test func fileErrorsCarryThePath() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.p12")
        let notFound = #expect(throws: TLSError.self) { try TLSCredentials(pkcs12File: missing, password: "pw") }
        #expect(notFound?.kind == .fileNotFound)
        #expect(notFound?.path == missing)
        #expect(notFound?.errno == ENOENT)

        let present = directory.path("client.p12")
        try Data(try clientCredentials().pkcs12(password: "pw")).write(to: URL(fileURLWithPath: present))
        let wrong = #expect(throws: TLSError.self) { try TLSCredentials(pkcs12File: present, password: "nope") }
        #expect(wrong?.kind == .wrongPassphrase)
        #expect(wrong?.path == present)
    }

    @Test func pushEnvironmentCheck() throws {
        let both = try fixture.client.credentials()
        try both.checkPushEnvironment(.sandbox)
        try both.checkPushEnvironment(.production)

        let sandboxOnly = try fixture.authority.issueClientCertificate(topic: "com.example.app", environments: [.sandbox])
            .credentials()
        try sandboxOnly.checkPushEnvironment(.sandbox)
        let error = #expect(throws: TLSError.self) { try sandboxOnly.checkPushEnvironment(.production) }
        #expect(error?.kind == .wrongEnvironment)
        #expect(error?.context.contains("does not support configured environment, production: true") == true)
        #expect(error?.context.contains(PushEnvironment.production.oid) == true)

        let neither = try fixture.server.credentials()
        let sandboxError = #expect(throws: TLSError.self) { try neither.checkPushEnvironment(.sandbox) }
        #expect(sandboxError?.context.contains("production: false") == true)
    }

    @Test func derCertificateAndKey() throws {
        let certificate = try TLSCertificate(der: derBytes(fromPEM: fixture.client.certificate.pem()))
        let key = try TLSPrivateKey(der: derBytes(fromPEM: fixture.client.privateKey.pem()))
        let credentials = try TLSCredentials(certificate: certificate, privateKey: key)
        #expect(credentials.certificate.subject == fixture.client.certificate.subject)
        #expect(try key.pem() == fixture.client.privateKey.pem())
    }

    /// Found by fuzzing (LeakSanitizer, at the exit of every process that had read a legacy
    /// bundle): the providers loaded for RC2 were dropped instead of kept for the process.
    @Test func theLegacyProvidersLoadedForRC2AreKept() throws {
        let bundle = try clientCredentials().pkcs12(password: "pw", legacy: true)
        _ = try TLSCredentials(pkcs12: bundle, password: "pw")
        #expect(LegacyProvider.loadedCount == 2, "the default and the legacy provider, held")
        #expect(try LegacyProvider.load() == false, "loaded once per process")
        #expect(LegacyProvider.loadedCount == 2)
    }
}

/// Whether `needle` occurs in `haystack`.
private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// The DER inside one PEM block: the base64 between the BEGIN and END lines.
private func derBytes(fromPEM pem: String) throws -> [UInt8] {
    let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    return Array(try #require(Data(base64Encoded: body)))
}

/// A fresh directory under the system's temporary directory, removed when the value is released.
private final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("apntls-pkcs12-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }
}
