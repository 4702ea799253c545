import APNWire
import APNTestSupport
import Testing

@Suite struct EncoderTests {
    @Test func simpleNotificationMatchesTheVector() {
        var buffer = WireBuffer()
        buffer.writeSimpleNotification(token: Vectors.token, payload: Vectors.payload)
        #expect(buffer.readableBytesArray == Vectors.simple)
        #expect(buffer.readableBytes == 5 + 32 + 10)
    }

    @Test func enhancedNotificationMatchesTheVector() {
        var buffer = WireBuffer()
        buffer.writeEnhancedNotification(
            identifier: Vectors.identifier, expiry: Vectors.expiry, token: Vectors.token, payload: Vectors.payload)
        #expect(buffer.readableBytesArray == Vectors.enhanced)
        #expect(buffer.readableBytes == 13 + 32 + 10)
    }

    @Test func frameNotificationWritesItemsOneToFiveInOrder() {
        var buffer = WireBuffer()
        buffer.writeFrameNotification(
            identifier: Vectors.identifier, expiry: Vectors.expiry, priority: 10,
            token: Vectors.token, payload: Vectors.payload)
        #expect(buffer.readableBytesArray == Vectors.frame)
        #expect(WireBuffer.frameNotificationLength(tokenCount: 32, payloadCount: 10) == Vectors.frame.count)
    }

    @Test func frameNotificationWritesExpiryZeroAndPriorityFive() {
        var buffer = WireBuffer()
        buffer.writeFrameNotification(identifier: 0xFFFF_FFFF, expiry: 0, priority: 5, token: [0xAB], payload: [0x7B, 0x7D])
        #expect(buffer.description == "02" + "0000001b" + "010001ab" + "0200027b7d"
            + "030004ffffffff" + "04000400000000" + "05000105")
    }

    @Test func writeNotificationDispatchesOnTheCommand() {
        for (command, vector) in [(Command.simple, Vectors.simple), (.enhanced, Vectors.enhanced), (.frame, Vectors.frame)] {
            var buffer = WireBuffer()
            buffer.writeNotification(
                command, identifier: Vectors.identifier, expiry: Vectors.expiry, priority: 10,
                token: Vectors.token, payload: Vectors.payload)
            #expect(buffer.readableBytesArray == vector, "\(command)")
        }
    }

    @Test func errorResponseMatchesTheVector() {
        var buffer = WireBuffer()
        buffer.writeErrorResponse(status: .invalidToken, identifier: 42)
        #expect(buffer.readableBytesArray == Vectors.errorResponse)
        buffer.clear()
        buffer.writeErrorResponse(status: .shutdown, identifier: 0xDEAD_BEEF)
        #expect(buffer.description == "080adeadbeef")
    }

    @Test func feedbackTupleMatchesTheVector() {
        var buffer = WireBuffer()
        buffer.writeFeedbackTuple(time: Vectors.expiry, token: Vectors.token)
        #expect(buffer.readableBytesArray == Vectors.feedbackTuple)
        buffer.clear()
        buffer.writeFeedbackTuple(time: 1, token: [0xFF, 0x00, 0x7F])
        #expect(buffer.description == "000000010003ff007f")
    }

    @Test func framesAreAppendedBackToBack() {
        var buffer = WireBuffer(capacity: 16)
        buffer.writeSimpleNotification(token: Vectors.token, payload: Vectors.payload)
        buffer.writeEnhancedNotification(
            identifier: Vectors.identifier, expiry: Vectors.expiry, token: Vectors.token, payload: Vectors.payload)
        buffer.writeFrameNotification(
            identifier: Vectors.identifier, expiry: Vectors.expiry, priority: 10,
            token: Vectors.token, payload: Vectors.payload)
        #expect(buffer.readableBytesArray == Vectors.simple + Vectors.enhanced + Vectors.frame)
    }
}
