import APNHTTP2
import APNTLS
import APNWire
import Foundation
import APNTestSupport
import APNTestTraits
import Testing

/// The record file of `apn mock-gateway --record`, byte for byte: the lines other tools parse
/// must not move when the writer is made faster (issue #26). Each kind of field is pinned: the
/// optional ones present and absent, the payload's escapes (every control byte, quote, backslash,
/// non-ASCII text) and the base64 form of a payload that is not UTF-8.
@Suite("apn mock-gateway --record file", .threadPerTest, .ownsChildProcesses)
struct ApnRecordFileTests {
    /// Every byte below 0x20, then `"` `\` `/` DEL (written as it is), é and 😀 (UTF-8).
    static let escapedPayload: [UInt8] = Array(0x00...0x1F) + [0x22, 0x5C, 0x2F, 0x7F] + Array("é😀".utf8)
    /// Not UTF-8: a lone continuation byte, an overlong NUL, a surrogate, a byte never used.
    static let binaryPayload: [UInt8] = [0x7B, 0x80, 0xC0, 0x80, 0xED, 0xA0, 0x80, 0xFF, 0x7D]

    static let binaryLines = #"""
        {"connection":1,"seq":1,"command":0,"identifier":null,"token":"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f","payload":"{\"aps\":{\"alert\":\"hello\"}}","expiry":null,"priority":null}
        {"connection":1,"seq":2,"command":1,"identifier":7,"token":"abababababababababababababababababababababababababababababababab","payload":"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f\"\\/\#u{7F}é😀","expiry":0,"priority":null}
        {"connection":1,"seq":3,"command":2,"identifier":4294967295,"token":"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff","payload_base64":"e4DAgO2ggP99","expiry":4294967295,"priority":5}
        {"connection":1,"seq":4,"command":2,"identifier":null,"token":"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd","payload":"{}","expiry":null,"priority":null}

        """#

    @Test("binary gateway: commands 0, 1 and 2 (with and without items 3-5), escapes, base64")
    func binaryRecordLines() throws {
        let recordFile = temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        let fixture = try SendFixture(gatewayArguments: ["--record", recordFile])
        let port = try #require(fixture.address.split(separator: ":").last.flatMap { UInt16($0) })
        let context = try TLSClientContext(
            trustedCertificates: TLSCertificate.certificates(fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: fixture.certs + "/ca.pem")))),
            credentials: TLSCredentials(certificateFile: fixture.certs + "/client.pem", keyFile: fixture.certs + "/client.key"))
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: port, context: context, timeout: .seconds(10))
        defer { connection.close() }
        try connection.handshake(deadline: .now + .seconds(10))

        var frames = WireBuffer()
        frames.writeSimpleNotification(token: Array(0..<32), payload: Array(#"{"aps":{"alert":"hello"}}"#.utf8))
        frames.writeEnhancedNotification(
            identifier: 7, expiry: 0, token: [UInt8](repeating: 0xAB, count: 32), payload: Self.escapedPayload)
        frames.writeFrameNotification(
            identifier: .max, expiry: .max, priority: 5, token: [UInt8](repeating: 0xFF, count: 32),
            payload: Self.binaryPayload)
        // Command 2 with the token and payload items only.
        frames.write([2, 0, 0, 0, 3 + 32 + 3 + 2, 1, 0, 32] + [UInt8](repeating: 0xCD, count: 32) + [2, 0, 2] + Array("{}".utf8))
        // An empty payload is refused (status 4) after the four above were judged in order:
        // its error response says they are recorded.
        frames.writeEnhancedNotification(identifier: 99, expiry: 0, token: [UInt8](repeating: 1, count: 32), payload: [])
        let client = TestClient(connection)
        try client.send(frames.readableBytesArray, timeout: .seconds(10))
        let transcript = try client.readToEnd(timeout: .seconds(30))
        #expect(transcript.bytes == [8, 4, 0, 0, 0, 99], "error response")

        let summary = try fixture.stop()
        #expect(summary["accepted"] as? Int == 4)
        // Line by line, so a failure shows which line moved.
        let written = try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let expected = Self.binaryLines.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(written == expected)
    }

    static let http2Lines = #"""
        {"protocol":"http2","connection":1,"seq":1,"token":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","topic":"com.example.app","push_type":null,"priority":null,"expiration":null,"collapse_id":null,"apns_id":"00000000-0000-4000-8000-000000000001","auth":"certificate","payload":"{\"aps\":{\"alert\":\"hi\"}}"}
        {"protocol":"http2","connection":1,"seq":2,"token":"abcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcd","topic":"com.example.app","push_type":"background","priority":5,"expiration":4102444800,"collapse_id":"c\"1\\é","apns_id":"123E4567-E89B-42D3-A456-426614174000","auth":"certificate","payload":"{\"aps\":\t{\"alert\":\"q\\\"/é😀\"},\r\n\"x\":1}"}
        {"protocol":"http2","connection":2,"seq":3,"token":"1111111111111111111111111111111111111111111111111111111111111111","topic":"com.example.app","push_type":"alert","priority":10,"expiration":0,"collapse_id":null,"apns_id":"00000000-0000-4000-8000-000000000003","auth":"token","key_id":"MOCKKEY001","team_id":"MOCKTEAM01","payload":"{\"aps\":{\"badge\":1}}"}

        """#

    @Test("HTTP/2 gateway: optional headers present and absent, escapes, certificate and token authentication; writer threads named")
    func http2RecordLines() throws {
        let recordFile = temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--record", recordFile])
        let port = try #require(fixture.http2Address?.split(separator: ":").last.flatMap { UInt16($0) })
        let ca = try TLSCertificate.certificates(fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: fixture.certs + "/ca.pem"))))
        let certificateClient = try HTTP2TestClient.connect(port: port, context: TLSClientContext(
            trustedCertificates: ca,
            credentials: TLSCredentials(certificateFile: fixture.certs + "/client.pem", keyFile: fixture.certs + "/client.key"),
            applicationProtocols: ["h2"]))
        let first = try certificateClient.exchange(
            headers: Self.request(token: "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789ABCDEF", [
                ("apns-topic", "com.example.app"), ("apns-id", "00000000-0000-4000-8000-000000000001"),
            ]),
            body: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
        #expect(first?.status == 200)
        let second = try certificateClient.exchange(
            headers: Self.request(token: String(repeating: "abcdef", count: 10) + "abcd", [
                ("apns-push-type", "background"), ("apns-priority", "5"), ("apns-expiration", "4102444800"),
                ("apns-collapse-id", #"c"1\é"#), ("apns-id", "123E4567-E89B-42D3-A456-426614174000"),
            ]),
            body: Array("{\"aps\":\t{\"alert\":\"q\\\"/é😀\"},\r\n\"x\":1}".utf8))
        #expect(second?.status == 200)

        let key = try ES256SigningKey(p8File: fixture.certs + "/AuthKey_MOCKKEY001.p8")
        let claims = ProviderTokenClaims(keyID: "MOCKKEY001", teamID: "MOCKTEAM01", issuedAt: Int64(Date().timeIntervalSince1970))
        let tokenClient = try HTTP2TestClient.connect(port: port, context: TLSClientContext(
            trustedCertificates: ca, applicationProtocols: ["h2"]))
        let third = try tokenClient.exchange(
            headers: Self.request(token: String(repeating: "1", count: 64), [
                ("authorization", "bearer " + (try JSONWebToken.sign(claims, with: key))), ("apns-topic", "com.example.app"),
                ("apns-push-type", "alert"), ("apns-priority", "10"), ("apns-expiration", "0"),
                ("apns-id", "00000000-0000-4000-8000-000000000003"),
            ]),
            body: Array(#"{"aps":{"badge":1}}"#.utf8))
        #expect(third?.status == 200)

        // Both record writers' threads carry names the system keeps (at most 15 bytes).
        let tasks = "/proc/\(fixture.gateway.pid)/task"
        let names = Set(((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).compactMap {
            try? String(contentsOfFile: "\(tasks)/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        })
        #expect(names.isSuperset(of: ["apn-record", "apn-record-h2"]), "\(names.sorted())")

        let summary = try fixture.stop()
        #expect((summary["http2"] as? [String: Any])?["accepted"] as? Int == 3)
        // Line by line, so a failure shows which line moved.
        let written = try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let expected = Self.http2Lines.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(written == expected)
    }

    /// A POST to `/3/device/TOKEN` with `fields` after the pseudo-headers.
    private static func request(token: String, _ fields: [(String, String)]) -> [HTTP2Header] {
        [
            HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "https"),
            HTTP2Header(":path", "/3/device/" + token), HTTP2Header(":authority", "api.push.apple.com"),
        ] + fields.map { HTTP2Header($0.0, $0.1) }
    }

    private func temporaryFile() -> String {
        (NSTemporaryDirectory() as NSString).appendingPathComponent("apn-record-\(UUID().uuidString).jsonl")
    }
}
