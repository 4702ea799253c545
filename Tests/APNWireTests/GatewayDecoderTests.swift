import APNWire
import APNTestSupport
import Testing

@Suite struct GatewayDecoderTests {
    static let simple = DecodedNotification(
        command: .simple, identifier: nil, expiry: nil, priority: nil,
        token: Vectors.token, payload: Vectors.payload, wireLength: Vectors.simple.count)
    static let enhanced = DecodedNotification(
        command: .enhanced, identifier: Vectors.identifier, expiry: Vectors.expiry, priority: nil,
        token: Vectors.token, payload: Vectors.payload, wireLength: Vectors.enhanced.count)
    static let frame = DecodedNotification(
        command: .frame, identifier: Vectors.identifier, expiry: Vectors.expiry, priority: 10,
        token: Vectors.token, payload: Vectors.payload, wireLength: Vectors.frame.count)
    static let minimalFrame = DecodedNotification(
        command: .frame, identifier: nil, expiry: nil, priority: nil,
        token: Vectors.token, payload: Vectors.payload, wireLength: Vectors.minimalFrame.count)

    @Test(arguments: Chunking.all)
    func decodesEachVector(chunking: Chunking) {
        #expect(decodeAll(Vectors.simple, chunking) == [.notification(Self.simple)])
        #expect(decodeAll(Vectors.enhanced, chunking) == [.notification(Self.enhanced)])
        #expect(decodeAll(Vectors.frame, chunking) == [.notification(Self.frame)])
        #expect(decodeAll(Vectors.minimalFrame, chunking) == [.notification(Self.minimalFrame)])
    }

    @Test(arguments: Chunking.all)
    func decodesMixedCommandsInOrderFromOneStream(chunking: Chunking) {
        let stream = Vectors.frame + Vectors.simple + Vectors.minimalFrame + Vectors.enhanced + Vectors.frame
        #expect(decodeAll(stream, chunking) == [
            .notification(Self.frame), .notification(Self.simple), .notification(Self.minimalFrame),
            .notification(Self.enhanced), .notification(Self.frame),
        ])
    }

    @Test func waitsForTheWholeNotification() {
        var decoder = GatewayDecoder()
        decoder.feed(Array(Vectors.frame.dropLast()))
        #expect(decoder.next() == nil)
        #expect(!decoder.isFinished)
        decoder.feed([Vectors.frame.last!])
        #expect(decoder.next() == .notification(Self.frame))
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func acceptsItemsInAnyOrder() {
        let reordered = hex("""
            02 00000042
            05 0001 05
            03 0004 00000007
            02 000a 7b22617073223a7b7d7d
            04 0004 00000000
            01 0020 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
            """)
        #expect(decodeAll(reordered, .whole) == [.notification(DecodedNotification(
            command: .frame, identifier: 7, expiry: 0, priority: 5,
            token: Vectors.token, payload: Vectors.payload, wireLength: reordered.count))])
    }

    @Test func acceptsConfiguredTokenLengthsAndPayloadLimits() {
        let limits = GatewayDecoder.Limits(tokenLengths: 1...100, framePayloadLimit: 4096)
        var buffer = WireBuffer()
        let token = [UInt8](repeating: 0xEE, count: 100)
        let payload = [UInt8](repeating: 0x20, count: 4096)
        buffer.writeFrameNotification(identifier: 9, expiry: 0, priority: 10, token: token, payload: payload)
        let messages = decodeAll(buffer.readableBytesArray, .random(seed: 5), limits: limits)
        guard case .notification(let note) = messages.first else {
            Issue.record("expected a notification, got \(messages)")
            return
        }
        #expect(messages.count == 1)
        #expect(note.token == token && note.payload == payload && note.identifier == 9)
    }

    // MARK: rejections, each with the status Apple would send

    static let rejections: [(name: String, bytes: [UInt8], status: StatusCode, identifier: UInt32?)] = [
        ("simple, empty token", hex("00 0000 000a 7b22617073223a7b7d7d"), .missingDeviceToken, nil),
        ("simple, 31-byte token", hex("00 001f") + Array(Vectors.token.prefix(31)) + hex("000a") + Vectors.payload,
         .invalidTokenSize, nil),
        ("enhanced, empty token", hex("01 00000005 00000000 0000 000a") + Vectors.payload, .missingDeviceToken, 5),
        ("enhanced, 33-byte token", hex("01 00000006 00000000 0021") + Vectors.token + hex("ff 000a") + Vectors.payload,
         .invalidTokenSize, 6),
        ("enhanced, empty payload", hex("01 00000007 00000000 0020") + Vectors.token + hex("0000"), .missingPayload, 7),
        ("enhanced, 257-byte payload", hex("01 00000008 00000000 0020") + Vectors.token + hex("0101"),
         .invalidPayloadSize, 8),
        ("frame, no token item", hex("02 0000000d 02 000a") + Vectors.payload, .missingDeviceToken, nil),
        ("frame, no payload item",
         hex("02 0000002a 01 0020") + Vectors.token + hex("03 0004 0000000b"), .missingPayload, 11),
        ("frame, 2049-byte payload announced",
         hex("02 0000082e 01 0020") + Vectors.token + hex("02 0801") + [UInt8](repeating: 0x20, count: 2049)
            + hex("03 0004 0000000c"), .invalidPayloadSize, 12),
        ("frame, 16-byte token", hex("02 0000001e 01 0010") + Array(Vectors.token.prefix(16))
            + hex("02 0001 20 03 0004 0000000d"), .invalidTokenSize, 13),
        ("frame, duplicate token item", hex("02 0000004d 03 0004 0000000e 01 0020") + Vectors.token
            + hex("01 0020") + Vectors.token, .protocolError, 14),
        ("frame, unknown item 6", hex("02 00000005 06 0002 0000"), .protocolError, nil),
        ("frame, item past the frame end", hex("02 00000005 02 0010 7b7d"), .protocolError, nil),
        ("frame, truncated item header", hex("02 00000002 01 00"), .protocolError, nil),
        ("frame, 3-byte identifier item", hex("02 00000006 03 0003 000001"), .protocolError, nil),
        ("frame, 2-byte expiry item", hex("02 0000000c 03 0004 0000000f 04 0002 0000"), .protocolError, 15),
        ("frame, 2-byte priority item", hex("02 0000000c 03 0004 00000010 05 0002 0a0a"), .protocolError, 16),
        ("frame, priority 7", hex("02 0000000b 03 0004 00000011 05 0001 07"), .protocolError, 17),
        ("frame, empty frame", hex("02 00000000"), .missingDeviceToken, nil),
    ]

    @Test(arguments: Chunking.all)
    func rejectsWithAppleStatusAndIdentifier(chunking: Chunking) {
        for vector in Self.rejections {
            guard let rejection = onlyRejection(vector.bytes, chunking, vector.name) else { continue }
            #expect(rejection.status == vector.status, "\(vector.name): \(rejection)")
            #expect(rejection.identifier == vector.identifier, "\(vector.name): \(rejection)")
        }
    }

    @Test func errorResponseNamesTheIdentifierOrZero() {
        let withID = Rejection(command: .frame, status: .invalidToken, identifier: 77, reason: "")
        #expect(withID.errorResponse == ErrorResponse(status: .invalidToken, identifier: 77))
        let withoutID = Rejection(command: .frame, status: .protocolError, identifier: nil, reason: "")
        #expect(withoutID.errorResponse == ErrorResponse(status: .protocolError, identifier: 0))
        // Command 0 has no identifier: Apple closed without a response.
        let simple = Rejection(command: .simple, status: .invalidTokenSize, identifier: nil, reason: "")
        #expect(simple.errorResponse == nil)
    }

    @Test func oversizedPayloadIsRejectedFromTheHeaderAlone() {
        // The payload length says 65,535 bytes; the decoder answers without waiting for them.
        var decoder = GatewayDecoder()
        decoder.feed(hex("01 00000063 00000000 0020") + Vectors.token + hex("ffff"))
        #expect(decoder.next() == .rejected(Rejection(
            command: .enhanced, status: .invalidPayloadSize, identifier: 99, reason: "payload length 65535")))
    }

    @Test func hugeFrameLengthIsRejectedBeforeBuffering() {
        var decoder = GatewayDecoder()
        decoder.feed(hex("02 ffffffff 01 0020"))
        guard case .rejected(let rejection) = decoder.next() else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.status == .protocolError)
        #expect(rejection.identifier == nil)
        #expect(decoder.isFinished)
        decoder.feed([UInt8](repeating: 0, count: 10_000))
        #expect(decoder.bufferedByteCount < 16, "bytes after the end of the stream are not kept")
    }

    @Test func unknownCommandClosesTheStream() {
        var decoder = GatewayDecoder()
        decoder.feed(Vectors.enhanced + hex("03 0000") + Vectors.enhanced)
        #expect(decoder.next() == .notification(Self.enhanced))
        #expect(decoder.next() == .unknownCommand(3))
        #expect(decoder.isFinished)
        #expect(decoder.next() == nil)
    }

    @Test func nothingAfterARejectionIsRead() {
        var decoder = GatewayDecoder()
        decoder.feed(Vectors.enhanced + hex("01 00000002 00000000 0000 000a") + Vectors.payload + Vectors.frame)
        #expect(decoder.next() == .notification(Self.enhanced))
        guard case .rejected(let rejection) = decoder.next() else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.identifier == 2)
        #expect(decoder.next() == nil)
    }

    @Test func randomGarbageNeverTrapsAndEndsWellFormed() {
        var generator = SplitMix64(seed: 0xA11CE)
        for round in 0..<2000 {
            var bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Bias towards known commands so the validation paths are reached, not only "unknown".
            if !bytes.isEmpty { bytes[0] = UInt8.random(in: 0...3, using: &generator) }
            var decoder = GatewayDecoder()
            for chunk in Chunking.random(seed: UInt64(round)).split(bytes) {
                decoder.feed(chunk)
                while let message = decoder.next() {
                    if case .notification(let note) = message {
                        #expect(note.token.count == 32 && !note.payload.isEmpty, "round \(round)")
                    }
                }
            }
            #expect(decoder.bufferedByteCount <= bytes.count, "round \(round)")
        }
    }
}
