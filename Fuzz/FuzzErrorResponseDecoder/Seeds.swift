import APNWire
import FuzzSupport

/// Seeds: the test suite's vectors, whole and in small chunks.
func errorResponseSeeds() -> [(name: String, bytes: [UInt8])] {
    var known = WireBuffer()
    for status in [StatusCode.shutdown, .invalidToken, .processingError] {
        known.writeErrorResponse(status: status, identifier: 42)
    }
    let vectors: [(String, [UInt8])] = [
        ("known", known.readableBytesArray),
        ("four-and-partial", bytes(fromHexLiteral: "08 0a 00000007 08 80 ffffffff 08 00 00000000 08 08 0000")),
        ("unknown-status", bytes(fromHexLiteral: "08 09 00000001 08 fe 00000002")),
        ("wrong-command", bytes(fromHexLiteral: "01 08 00000001")),
    ]
    return vectors.flatMap { name, bytes in [("\(name)-whole", [0] + bytes), ("\(name)-chunked", [2, 1, 5] + bytes)] }
}
