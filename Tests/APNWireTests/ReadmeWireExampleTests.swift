import APNWire
import APNTestSupport
import Testing

/// docs/LIBRARY.md's wire snippet, verbatim (APNTests.ReadmeSnippetTests checks it stays so).
@Suite struct ReadmeWireExampleTests {
    @Test func snippetEncodesAndDecodesOneNotification() {
        var buffer = WireBuffer()
        buffer.writeEnhancedNotification(identifier: 1, expiry: 0, token: [UInt8](repeating: 0xAB, count: 32),
                                         payload: Array(#"{"aps":{"alert":"Hi"}}"#.utf8))
        var gateway = GatewayDecoder()          // Apple's validation: statuses 2, 4, 5, 7, 128 …
        buffer.withUnsafeReadableBytes { gateway.feed($0) }
        if case .notification(let received)? = gateway.next() {
            print(received.identifier ?? 0, received.payload.count) // 1 22
        }

        guard case .notification(let received)? = decodeAll(buffer.readableBytesArray, .whole).first else {
            Issue.record("the snippet's frame did not decode")
            return
        }
        #expect(received.identifier == 1)
        #expect(received.payload.count == 22)
        #expect(received.token == [UInt8](repeating: 0xAB, count: 32))
    }
}
