import APNWire
import APNTestSupport
import Testing

/// Frames with items 1 to 5 once each and in order take the decoder's quick path; these pin
/// that it accepts exactly what the full item parse accepts: one flaw in that layout must
/// give the same rejection as anywhere else.
@Suite struct CanonicalFrameTests {
    static let identifier = hex("03 0004 01020304")
    static let expiry = hex("04 0004 5e0be100")

    /// A command 2 frame of `items`, its length computed.
    static func frame(_ items: [UInt8]...) -> [UInt8] {
        let body = items.flatMap { $0 }
        return [2] + withUnsafeBytes(of: UInt32(body.count).bigEndian) { Array($0) } + body
    }

    static func tokenItem(_ token: [UInt8] = Vectors.token) -> [UInt8] {
        [1, UInt8(token.count >> 8), UInt8(token.count & 0xFF)] + token
    }

    static func payloadItem(_ payload: [UInt8] = Vectors.payload) -> [UInt8] {
        [2, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
    }

    @Test func builderMatchesTheFrameVector() {
        #expect(Self.frame(Self.tokenItem(), Self.payloadItem(), Self.identifier, Self.expiry, hex("05 0001 0a"))
            == Vectors.frame)
    }

    @Test func acceptsPriorityFive() {
        let bytes = Self.frame(Self.tokenItem(), Self.payloadItem(), Self.identifier, Self.expiry, hex("05 0001 05"))
        #expect(decodeAll(bytes, .whole) == [.notification(DecodedNotification(
            command: .frame, identifier: 0x0102_0304, expiry: 1_577_836_800, priority: 5,
            token: Vectors.token, payload: Vectors.payload, wireLength: bytes.count))])
    }

    static let flaws: [(name: String, bytes: [UInt8], limits: GatewayDecoder.Limits, status: StatusCode, identifier: UInt32?)] = [
        ("priority 7", frame(tokenItem(), payloadItem(), identifier, expiry, hex("05 0001 07")),
         .init(), .protocolError, 0x0102_0304),
        ("2-byte priority item", frame(tokenItem(), payloadItem(), identifier, expiry, hex("05 0002 0a0a")),
         .init(), .protocolError, 0x0102_0304),
        ("5-byte identifier item", frame(tokenItem(), payloadItem(), hex("03 0005 0102030405"), expiry, hex("05 0001 0a")),
         .init(), .protocolError, nil),
        ("3-byte expiry item", frame(tokenItem(), payloadItem(), identifier, hex("04 0003 5e0be1"), hex("05 0001 0a")),
         .init(), .protocolError, 0x0102_0304),
        ("empty payload", frame(tokenItem(), payloadItem([]), identifier, expiry, hex("05 0001 0a")),
         .init(), .missingPayload, 0x0102_0304),
        ("payload above the limit", frame(tokenItem(), payloadItem(), identifier, expiry, hex("05 0001 0a")),
         .init(framePayloadLimit: 9), .invalidPayloadSize, 0x0102_0304),
        ("empty token, though 0 is a configured length", frame(tokenItem([]), payloadItem(), identifier, expiry, hex("05 0001 0a")),
         .init(tokenLengths: 0...100), .missingDeviceToken, 0x0102_0304),
        ("token length not configured", frame(tokenItem(), payloadItem(), identifier, expiry, hex("05 0001 0a")),
         .init(tokenLengths: 16...16), .invalidTokenSize, 0x0102_0304),
        ("unknown item after the five", frame(tokenItem(), payloadItem(), identifier, expiry, hex("05 0001 0a 06 0000")),
         .init(), .protocolError, 0x0102_0304),
        ("priority item twice", frame(tokenItem(), payloadItem(), identifier, expiry, hex("05 0001 0a 05 0001 0a")),
         .init(), .protocolError, 0x0102_0304),
        ("token length past the frame", frame(hex("01 ffff") + Vectors.token, payloadItem(), identifier, expiry, hex("05 0001 0a")),
         .init(), .protocolError, nil),
    ]

    @Test(arguments: Chunking.all)
    func rejectsEachFlawAsTheFullParseDoes(chunking: Chunking) {
        for flaw in Self.flaws {
            let messages = decodeAll(flaw.bytes, chunking, limits: flaw.limits)
            guard messages.count == 1, case .rejected(let rejection) = messages[0] else {
                Issue.record("\(flaw.name): expected one rejection, got \(messages)")
                continue
            }
            #expect(rejection.status == flaw.status, "\(flaw.name): \(rejection)")
            #expect(rejection.identifier == flaw.identifier, "\(flaw.name): \(rejection)")
        }
    }
}
