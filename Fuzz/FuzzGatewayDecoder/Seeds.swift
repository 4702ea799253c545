import APNWire
import FuzzSupport

/// Seeds: each format accepted, the test suite's rejection vectors, a glued stream; fed
/// whole (mode 0) and in small chunks with the wider limits and in-place decoding (mode 3).
func gatewaySeeds() -> [(name: String, bytes: [UInt8])] {
    let token = (0..<32).map { UInt8($0) }
    let payload = Array(#"{"aps":{"alert":"Hello"}}"#.utf8)
    var simple = WireBuffer(), enhanced = WireBuffer(), frame = WireBuffer(), stream = WireBuffer()
    simple.writeSimpleNotification(token: token, payload: payload)
    enhanced.writeEnhancedNotification(identifier: 7, expiry: 1_700_000_000, token: token, payload: payload)
    frame.writeFrameNotification(identifier: 9, expiry: 0, priority: 10, token: token, payload: payload)
    stream.writeFrameNotification(identifier: 1, expiry: 0, priority: 5, token: token, payload: payload)
    stream.writeEnhancedNotification(identifier: 2, expiry: 0, token: token, payload: payload)
    stream.writeSimpleNotification(token: token, payload: payload)
    let vectors: [(String, [UInt8])] = [
        ("simple", simple.readableBytesArray), ("enhanced", enhanced.readableBytesArray),
        ("frame", frame.readableBytesArray), ("stream", stream.readableBytesArray),
        ("simple-empty-token", bytes(fromHexLiteral: "00 0000 000a 7b22617073223a7b7d7d")),
        ("enhanced-token-zero", bytes(fromHexLiteral: "01 00000007 00000000 0000")),
        ("frame-no-token", bytes(fromHexLiteral: "02 0000000d 02 000a 7b22617073223a7b7d7d")),
        ("frame-unknown-item", bytes(fromHexLiteral: "02 00000005 06 0002 0000")),
        ("frame-item-past-end", bytes(fromHexLiteral: "02 00000005 02 0010 7b7d")),
        ("frame-reordered", bytes(fromHexLiteral: "02 0000002a 03 0004 0000000b 01 0020") + token),
        ("unknown-command", bytes(fromHexLiteral: "07 0000")),
    ]
    return vectors.flatMap { name, bytes in
        [("\(name)-whole", [0, 0] + bytes), ("\(name)-chunked", [3, 3, 1, 7, 2] + bytes)]
    }
}
