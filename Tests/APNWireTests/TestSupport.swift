import APNWire
import APNTestSupport
import Testing

/// Feeds `bytes` in chunks and collects every message the decoder produces.
func decodeAll(_ bytes: [UInt8], _ chunking: Chunking, limits: GatewayDecoder.Limits = .init()) -> [GatewayMessage] {
    var decoder = GatewayDecoder(limits: limits)
    var messages: [GatewayMessage] = []
    for chunk in chunking.split(bytes) {
        decoder.feed(chunk)
        while let message = decoder.next() { messages.append(message) }
    }
    return messages
}

/// The one message `bytes` decode to when it is a rejection; else nil, with an issue
/// recorded that names the vector.
func onlyRejection(_ bytes: [UInt8], _ chunking: Chunking, _ name: String) -> Rejection? {
    let messages = decodeAll(bytes, chunking)
    guard messages.count == 1, case .rejected(let rejection) = messages[0] else {
        Issue.record("\(name): expected one rejection, got \(messages)")
        return nil
    }
    return rejection
}

/// The vectors shared by the encoder and decoder tests.
enum Vectors {
    /// A 32-byte token, 00 01 … 1f.
    static let token = hex("000102030405060708090a0b0c0d0e0f 101112131415161718191a1b1c1d1e1f")
    /// `{"aps":{}}`, 10 bytes.
    static let payload = Array(#"{"aps":{}}"#.utf8)
    static let identifier: UInt32 = 0x0102_0304
    /// 2020-01-01T00:00:00Z.
    static let expiry: UInt32 = 1_577_836_800

    static let simple = hex("""
        00 0020 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
        000a 7b22617073223a7b7d7d
        """)
    static let enhanced = hex("""
        01 01020304 5e0be100 0020 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
        000a 7b22617073223a7b7d7d
        """)
    /// Items 1–5 in order; frame length 3+32 + 3+10 + 7 + 7 + 4 = 66 = 0x42.
    static let frame = hex("""
        02 00000042
        01 0020 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
        02 000a 7b22617073223a7b7d7d
        03 0004 01020304
        04 0004 5e0be100
        05 0001 0a
        """)
    /// Only items 1 and 2, as a minimal client might send: frame length 48 = 0x30.
    static let minimalFrame = hex("""
        02 00000030
        01 0020 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
        02 000a 7b22617073223a7b7d7d
        """)
    /// Status 8 (invalid token) for identifier 42.
    static let errorResponse = hex("08 08 0000002a")
    static let feedbackTuple = hex("5e0be100 0020 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
}
