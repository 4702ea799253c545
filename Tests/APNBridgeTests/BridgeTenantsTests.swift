import APN
import APNBridge
import APNTLS
import APNWire
import Foundation
import Testing

/// The bridge's tenants: a configuration file read and checked, and a client certificate
/// mapped to its tenant (never to another's).
@Suite("Bridge: tenants")
struct BridgeTenantsTests {
    /// docs/BRIDGE.md's tenants example.
    @Test func bridgePagesConfigurationExampleParses() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/BRIDGE.md"), encoding: .utf8)
        let section = try #require(page.range(of: "# The bridge"))
        let start = try #require(page.range(of: "```json\n", range: section.upperBound..<page.endIndex))
        let end = try #require(page.range(of: "\n```", range: start.upperBound..<page.endIndex))
        let tenants = try BridgeTenants.parse(json: Array(page[start.upperBound..<end.lowerBound].utf8))
        #expect(tenants.all.map(\.name) == ["acme", "mdm"])
        #expect(tenants.all[1].pushType == .mdm)
        #expect(tenants.all[0].upstream == .token(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", p8: "/etc/apn/AuthKey_ABC123DEFG.p8"))
    }

    static func parse(_ text: String) throws(BridgeConfigurationError) -> BridgeTenants {
        try BridgeTenants.parse(json: Array(text.utf8))
    }

    @Test func readsBothKindsOfUpstreamAndBothKindsOfMatch() throws {
        let fingerprint = String(repeating: "ab", count: 31) + "CD"
        let tenants = try Self.parse(
            """
            {"tenants": [
              {"name": "acme", "uid": "com.acme.app", "topic": "com.acme.app",
               "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ", "p8": "/etc/apn/AuthKey.p8"},
              {"name": "legacy", "fingerprints": ["\(fingerprint)"], "uid": ["com.legacy.a", "com.legacy.b"],
               "topic": "com.legacy.app", "cert": "/etc/apn/legacy.pem", "key": "/etc/apn/legacy.key", "push_type": "mdm"}
            ]}
            """)
        #expect(tenants.all.map(\.name) == ["acme", "legacy"])
        #expect(tenants.all[0].matches == [.userID("com.acme.app")])
        #expect(tenants.all[0].upstream == .token(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", p8: "/etc/apn/AuthKey.p8"))
        #expect(
            tenants.all[1].matches
                == [.userID("com.legacy.a"), .userID("com.legacy.b"), .fingerprint(bytes(fromHex: fingerprint.lowercased())!)])
        #expect(tenants.all[1].upstream == .certificate(cert: "/etc/apn/legacy.pem", key: "/etc/apn/legacy.key"))
        #expect(tenants.all[0].pushType == nil && tenants.all[1].pushType == .mdm)
    }

    @Test func fingerprintsWithColonsAsOpenSSLPrintsThem() throws {
        let digest = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let colons = digest.map { String(format: "%02X", $0) }.joined(separator: ":")  // "00:07:0E:…"
        let tenants = try Self.parse(
            #"{"tenants":[{"name":"a","fingerprints":"\#(colons)","topic":"t","cert":"c","key":"k"}]}"#)
        #expect(tenants.all[0].matches == [.fingerprint(digest)])
    }

    @Test("a configuration refused, naming the place", arguments: [
        (#"[]"#, "not a JSON object"),
        (#"{"tenant":[]}"#, "unknown key \"tenant\""),
        (#"{"tenants":[]}"#, "no tenant configured"),
        (#"{"tenants":[{"name":"a","uid":"u","topic":"t","key_id":"K","team_id":"T","p8":"f","tpoic":"x"}]}"#, "tenants[0]: unknown key \"tpoic\""),
        (#"{"tenants":[{"name":"a","uid":"u","key_id":"K","team_id":"T","p8":"f"}]}"#, "tenants[0].topic must be a string"),
        (#"{"tenants":[{"name":"a","topic":"t","key_id":"K","team_id":"T","p8":"f"}]}"#, "names no client certificate"),
        (#"{"tenants":[{"name":"a","uid":"u","topic":"t"}]}"#, "has no upstream credentials"),
        (#"{"tenants":[{"name":"a","uid":"u","topic":"t","key_id":"K","cert":"c"}]}"#, "not a mix (has key_id, cert)"),
        (#"{"tenants":[{"name":"a","uid":"u","topic":"t","cert":"c","key":"k"},{"name":"b","uid":"u","topic":"t","cert":"c","key":"k"}]}"#, "tenants[1].uid \"u\" is tenants[0]'s too"),
        (#"{"tenants":[{"name":"a","uid":"u","topic":"t","cert":"c","key":"k"},{"name":"a","uid":"v","topic":"t","cert":"c","key":"k"}]}"#, "tenants[1].name \"a\" is used twice"),
        (#"{"tenants":[{"name":"a","fingerprints":["zz"],"topic":"t","cert":"c","key":"k"}]}"#, "tenants[0].fingerprints[0] is not hex"),
        (#"{"tenants":[{"name":"a","fingerprints":["abcd"],"topic":"t","cert":"c","key":"k"}]}"#, "is 2 bytes; SHA-256 is 32"),
        (#"{"tenants":[{"name":"a","uid":[1],"topic":"t","cert":"c","key":"k"}]}"#, "tenants[0].uid[0] must be a string"),
        (#"{"tenants":[{"name":"a","uid":"u","topic":"t","cert":"c","key":"k","push_type":"alrt"}]}"#, "tenants[0].push_type \"alrt\" is not one of Apple's"),
    ])
    func refused(json: String, message: String) {
        #expect {
            _ = try Self.parse(json)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func aCertificateMapsToItsTenantByFingerprintFirstThenUID() throws {
        let authority = try CertificateAuthority()
        let pinned = try authority.issueClientCertificate(topic: "com.shared.app")
        let other = try authority.issueClientCertificate(topic: "com.shared.app")
        let stranger = try authority.issueClientCertificate(topic: "com.stranger.app")
        let tenants = try BridgeTenants([
            BridgeTenant(
                name: "by-uid", matches: [.userID("com.shared.app")], topic: "com.shared.app",
                upstream: .certificate(cert: "c", key: "k")),
            BridgeTenant(
                name: "pinned", matches: [.fingerprint(pinned.certificate.sha256Fingerprint)], topic: "com.shared.app",
                upstream: .certificate(cert: "c", key: "k")),
        ])
        #expect(tenants.tenant(for: pinned.certificate)?.name == "pinned", "a pinned certificate is its tenant's")
        #expect(tenants.tenant(for: other.certificate)?.name == "by-uid")
        #expect(tenants.tenant(for: stranger.certificate) == nil)
    }

    @Test func providerOptionsCarryTheTenantsCredentialsAndTopic() {
        var base = Provider.Options()
        base.address = "127.0.0.1"
        let token = BridgeTenant(
            name: "t", matches: [.userID("u")], topic: "com.t.app",
            upstream: .token(keyID: "K", teamID: "T", p8: "/k.p8")).providerOptions(base)
        #expect(token.topic == "com.t.app" && token.address == "127.0.0.1")
        #expect(token.authentication == .token(keyID: "K", teamID: "T", key: .file("/k.p8")))
        let certificate = BridgeTenant(
            name: "c", matches: [.userID("u")], topic: "com.c.app", upstream: .certificate(cert: "/c.pem", key: "/c.key")
        ).providerOptions(base)
        #expect(certificate.authentication == .certificate)
        #expect(certificate.cert == .file("/c.pem") && certificate.key == .file("/c.key"))
    }
}
