import APNTLS
import Testing

/// Apple's topics extension (OID 1.2.840.113635.100.6.3.6, issue #26 row 5): a SEQUENCE
/// alternating each topic with a SEQUENCE holding its kind, all UTF8String.
@Suite struct PushTopicsTests {
    @Test func encodesOneTopicAsLiteralDER() {
        let der = PushTopicsExtension.encode([PushTopic("a.b", kind: "app")])
        // 30 0c { 0c 03 "a.b", 30 05 { 0c 03 "app" } }
        #expect(der == [0x30, 0x0C, 0x0C, 0x03, 0x61, 0x2E, 0x62, 0x30, 0x05, 0x0C, 0x03, 0x61, 0x70, 0x70])
        #expect(PushTopicsExtension.decode(der) == [PushTopic("a.b", kind: "app")])
    }

    @Test func usesTheLongLengthFormPast127Bytes() {
        let topic = String(repeating: "x", count: 200)
        let der = PushTopicsExtension.encode([PushTopic(topic, kind: "app")])
        // content: 3 + 200 (0c 81 c8 …) + 7 = 210 = 0xd2: 30 81 d2
        #expect(Array(der.prefix(6)) == [0x30, 0x81, 0xD2, 0x0C, 0x81, 0xC8])
        #expect(der.count == 3 + 210)
        #expect(PushTopicsExtension.decode(der) == [PushTopic(topic, kind: "app")])
    }

    @Test(arguments: [
        [UInt8](),
        [0x30, 0x0C, 0x0C, 0x03, 0x61, 0x2E, 0x62, 0x30, 0x05, 0x0C, 0x03, 0x61, 0x70],  // cut short
        [0x30, 0x05, 0x0C, 0x03, 0x61, 0x2E, 0x62],  // a topic without its kind
        [0x05, 0x00],  // a marker's NULL
        [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF],  // a length past the end
    ])
    func refusesOtherShapes(der: [UInt8]) {
        #expect(PushTopicsExtension.decode(der) == nil)
    }

    @Test func aCertificateCarriesTheTopicsItWasIssuedWith() throws {
        let authority = try CertificateAuthority()
        let universal = try authority.issueClientCertificate(
            topic: "com.example.app", topics: PushTopic.universal(bundleID: "com.example.app"))
        #expect(universal.certificate.pushTopics == [
            PushTopic("com.example.app", kind: "app"), PushTopic("com.example.app.voip", kind: "voip"),
            PushTopic("com.example.app.complication", kind: "complication"),
        ])
        #expect(universal.certificate.hasExtension(oid: PushTopicsExtension.oid))
        #expect(try authority.issueClientCertificate(topic: "com.example.app").certificate.pushTopics == nil)
    }
}
