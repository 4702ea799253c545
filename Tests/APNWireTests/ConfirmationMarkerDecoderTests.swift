import APNWire
import APNTestSupport
import Testing

/// A confirmation marker is an empty token *and* an empty payload; every other empty token
/// is a plain status-2 rejection (a buggy client's notification, which a gateway must not
/// count as a marker). Review of #27, finding 1: only the status was looked at.
@Suite struct ConfirmationMarkerDecoderTests {
    /// The markers swift-apn's session writes (`SessionEntry.flushMarker`: expiry 0,
    /// priority 10), as literal bytes.
    static let enhancedMarker = hex("01 00000002 00000000 0000 0000")
    static let frameMarker = hex("02 00000018 01 0000 02 0000 03 0004 00000009 04 0004 00000000 05 0001 0a")

    @Test("what the client writes for a marker is these bytes, in command 1 and command 2")
    func clientMarkerBytes() {
        var enhanced = WireBuffer()
        enhanced.writeNotification(.enhanced, identifier: 2, expiry: 0, priority: 10, token: [], payload: [])
        #expect(enhanced.readableBytesArray == Self.enhancedMarker)
        var frame = WireBuffer()
        frame.writeNotification(.frame, identifier: 9, expiry: 0, priority: 10, token: [], payload: [])
        #expect(frame.readableBytesArray == Self.frameMarker)
    }

    @Test("a marker is a status-2 rejection flagged as a marker, however the bytes arrive", arguments: Chunking.all)
    func markers(chunking: Chunking) {
        for (bytes, identifier) in [(Self.enhancedMarker, UInt32(2)), (Self.frameMarker, 9)] {
            guard let rejection = onlyRejection(bytes, chunking, "marker \(identifier)") else { continue }
            #expect(rejection.status == .missingDeviceToken)
            #expect(rejection.identifier == identifier)
            #expect(rejection.isConfirmationMarker, "\(rejection)")
            #expect(rejection.errorResponse == ErrorResponse(status: .missingDeviceToken, identifier: identifier))
        }
    }

    static let emptyTokensThatAreNotMarkers: [(name: String, bytes: [UInt8], identifier: UInt32?)] = [
        ("command 1, empty token with a payload", hex("01 00000005 00000000 0000 000a") + Vectors.payload, 5),
        ("command 1, empty token, payload length announced only", hex("01 00000006 00000000 0000 0001"), 6),
        ("command 2, empty token item with a payload",
         hex("02 00000022 01 0000 02 000a") + Vectors.payload + hex("03 0004 00000007 04 0004 00000000 05 0001 0a"), 7),
        ("command 2, empty token item, no payload item", hex("02 00000015 01 0000 03 0004 00000008 04 0004 00000000 05 0001 0a"), 8),
        ("command 2, no token item, empty payload item", hex("02 00000015 02 0000 03 0004 0000000a 04 0004 00000000 05 0001 0a"), 10),
        ("command 2, no items at all", hex("02 00000000"), nil),
        ("command 0, empty token and payload (no answer, so no marker)", hex("00 0000 0000"), nil),
    ]

    @Test("an empty token with a payload, or without both frame items, stays a plain rejection", arguments: Chunking.all)
    func notMarkers(chunking: Chunking) {
        for vector in Self.emptyTokensThatAreNotMarkers {
            guard let rejection = onlyRejection(vector.bytes, chunking, vector.name) else { continue }
            #expect(rejection.status == .missingDeviceToken, "\(vector.name): \(rejection)")
            #expect(rejection.identifier == vector.identifier, "\(vector.name): \(rejection)")
            #expect(!rejection.isConfirmationMarker, "\(vector.name): \(rejection)")
        }
    }

    @Test("command 1: an empty token is judged once the payload length has arrived, not before")
    func waitsForThePayloadLength() {
        var decoder = GatewayDecoder()
        decoder.feed(Array(Self.enhancedMarker.prefix(11)))
        #expect(decoder.next() == nil)
        #expect(!decoder.isFinished)
        decoder.feed(hex("00"))
        #expect(decoder.next() == nil)
        decoder.feed(hex("00"))
        #expect(decoder.next() == .rejected(Rejection(
            command: .enhanced, status: .missingDeviceToken, identifier: 2,
            reason: "confirmation marker (empty token and payload)", isConfirmationMarker: true)))
        #expect(decoder.isFinished)
    }
}
