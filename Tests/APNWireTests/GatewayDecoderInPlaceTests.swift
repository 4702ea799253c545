import APNWire
import APNTestSupport
import Testing

/// `GatewayDecoder.next(_:)`, which hands notifications over as views into its buffer:
/// it must agree with `next()` message for message, however the bytes arrive.
@Suite struct GatewayDecoderInPlaceTests {
    static let stream = Vectors.frame + Vectors.simple + Vectors.minimalFrame + Vectors.enhanced + Vectors.frame

    @Test(arguments: Chunking.all)
    func agreesWithNextOnEveryVector(chunking: Chunking) {
        #expect(decodeInPlace(Self.stream, chunking) == decodeAll(Self.stream, chunking))
        #expect(decodeInPlace(Self.stream, chunking).count == 5)
    }

    @Test(arguments: Chunking.all)
    func agreesWithNextOnARejection(chunking: Chunking) {
        let tokenLengthZero = hex("01 00000007 00000000 0000 000a") + Vectors.payload
        let bytes = Vectors.enhanced + tokenLengthZero + Vectors.frame
        let messages = decodeInPlace(bytes, chunking)
        #expect(messages == decodeAll(bytes, chunking))
        #expect(messages.count == 2)
        guard case .rejected(let rejection) = messages.last else {
            Issue.record("expected a rejection, got \(messages)")
            return
        }
        #expect(rejection.status == .missingDeviceToken)
        #expect(rejection.identifier == 7)
    }

    @Test func reportsAnUnknownCommandAndStops() {
        var decoder = GatewayDecoder()
        decoder.feed(Vectors.simple + [9] + Vectors.simple)
        var handed = 0
        #expect(decoder.next { _ in handed += 1 } == .notification)
        #expect(decoder.next { _ in handed += 1 } == .unknownCommand(9))
        #expect(decoder.next { _ in handed += 1 } == nil)
        #expect(handed == 1)
        #expect(decoder.isFinished)
    }

    @Test func handsNothingOverUntilTheWholeNotificationArrived() {
        var decoder = GatewayDecoder()
        var views: [DecodedNotification] = []
        decoder.feed(Array(Vectors.frame.dropLast()))
        #expect(decoder.next { views.append($0.copy()) } == nil)
        #expect(views.isEmpty)
        decoder.feed([Vectors.frame.last!])
        #expect(decoder.next { views.append($0.copy()) } == .notification)
        #expect(views == [GatewayDecoderTests.frame])
        #expect(decoder.bufferedByteCount == 0)
    }
}

/// Feeds `bytes` in chunks and collects every message, decoded in place and copied.
private func decodeInPlace(_ bytes: [UInt8], _ chunking: Chunking) -> [GatewayMessage] {
    var decoder = GatewayDecoder()
    var messages: [GatewayMessage] = []
    for chunk in chunking.split(bytes) {
        decoder.feed(chunk)
        while true {
            var copied: DecodedNotification?
            guard let event = decoder.next({ copied = $0.copy() }) else { break }
            switch event {
            case .notification: messages.append(.notification(copied!))
            case .rejected(let rejection): messages.append(.rejected(rejection))
            case .unknownCommand(let command): messages.append(.unknownCommand(command))
            }
        }
    }
    return messages
}
