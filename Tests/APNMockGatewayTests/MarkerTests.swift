import APNWire
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// A confirmation marker (an empty token and an empty payload, which swift-apn writes after
/// what it wants confirmed) is answered as Apple's gateway answered it, and counted apart:
/// not a rejection, not a record (#27 item 6). An empty token with a payload is a client's
/// mistake and stays a rejection (#27 review, finding 1).
@Suite(.threadPerTest) struct MarkerTests {
    @Test("command 1: one notification, then the 13-byte marker: status 2 naming it, a record, no rejection")
    func enhancedMarker() throws {
        let harness = try Harness()
        let client = try harness.connect()
        try client.send(enhancedFrames(1...1) + hex("01 00000002 00000000 0000 0000"))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 02 00000002"))
        #expect(transcript.end == .closed(clean: true))
        #expect(harness.gateway.records == [enhancedRecord(1, connection: 1, sequence: 1)])
        #expect(harness.gateway.markerCount == 1)
        #expect(harness.gateway.rejections.isEmpty)
    }

    @Test("command 2: a frame with an empty token item is a marker too")
    func frameMarker() throws {
        let harness = try Harness()
        let client = try harness.connect()
        // 02 | length 24 | 01 0000 | 02 0000 | 03 0004 00000009 | 04 0004 00000000 | 05 0001 0a
        try client.send(hex("02 00000018 01 0000 02 0000 03 0004 00000009 04 0004 00000000 05 0001 0a"))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 02 00000009"))
        #expect(harness.gateway.markerCount == 1)
        #expect(harness.gateway.rejections.isEmpty)
        #expect(harness.gateway.records.isEmpty)
    }

    @Test("a real refusal beside markers is still a rejection; markers add up over connections")
    func rejectionsStayRejections() throws {
        let harness = try Harness()
        let marker = hex("01 00000002 00000000 0000 0000")
        for _ in 1...2 {
            let client = try harness.connect()
            try client.send(enhancedFrames(1...1) + marker)
            #expect(try client.readToEnd().bytes == hex("08 02 00000002"))
        }
        let client = try harness.connect()
        var buffer = WireBuffer()
        buffer.writeEnhancedNotification(identifier: 5, expiry: 0, token: [UInt8](repeating: 7, count: 31), payload: payload(5))
        try client.send(buffer.readableBytesArray)
        #expect(try client.readToEnd().bytes == hex("08 05 00000005"))

        #expect(harness.gateway.markerCount == 2)
        #expect(harness.gateway.rejections == [.init(status: .invalidTokenSize, identifier: 5, connection: 3)])
        #expect(harness.gateway.recordCount == 2)
    }

    @Test("command 1: an empty token with a payload is a rejection, not a marker")
    func enhancedEmptyTokenWithPayload() throws {
        let harness = try Harness()
        let client = try harness.connect()
        try client.send(enhancedFrames(1...1) + hex("01 00000002 00000000 0000 000a 7b22617073223a7b7d7d"))

        #expect(try client.readToEnd().bytes == hex("08 02 00000002"))
        #expect(harness.gateway.markerCount == 0)
        #expect(harness.gateway.rejections == [.init(status: .missingDeviceToken, identifier: 2, connection: 1)])
        #expect(harness.gateway.recordCount == 1)
    }

    static let frameEmptyTokens: [(frame: [UInt8], identifier: UInt32)] = [
        // 02 | length 34 | 01 0000 | 02 000a {"aps":{}} | 03 0004 00000007 | 04 0004 00000000 | 05 0001 0a
        (hex("02 00000022 01 0000 02 000a 7b22617073223a7b7d7d 03 0004 00000007 04 0004 00000000 05 0001 0a"), 7),
        // 02 | length 18 | 03 0004 00000008 | 04 0004 00000000 | 05 0001 0a: no token, no payload item
        (hex("02 00000012 03 0004 00000008 04 0004 00000000 05 0001 0a"), 8),
    ]

    @Test("command 2: an empty token item beside a payload, or a frame without items 1 and 2, is a rejection",
          arguments: frameEmptyTokens)
    func frameEmptyTokenThatIsNoMarker(frame: [UInt8], identifier: UInt32) throws {
        let harness = try Harness()
        let client = try harness.connect()
        try client.send(frame)

        #expect(try client.readToEnd().bytes == hex("08 02") + [0, 0, 0, UInt8(identifier)])
        #expect(harness.gateway.markerCount == 0)
        #expect(harness.gateway.rejections == [.init(status: .missingDeviceToken, identifier: identifier, connection: 1)])
        #expect(harness.gateway.records.isEmpty)
    }
}
