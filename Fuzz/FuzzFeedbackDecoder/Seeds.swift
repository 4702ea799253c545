import APNWire
import FuzzSupport

/// Seeds: the test suite's vectors, whole and in small chunks, with the default limit and 32.
func feedbackSeeds() -> [(name: String, bytes: [UInt8])] {
    var tuples = WireBuffer()
    tuples.writeFeedbackTuple(time: 1_700_000_000, token: (0..<32).map { UInt8($0) })
    tuples.writeFeedbackTuple(time: 1, token: [0xAA])
    let vectors: [(String, [UInt8])] = [
        ("tuples", tuples.readableBytesArray),
        ("lengths", bytes(fromHexLiteral: "00000001 0001 aa 00000002 0003 bbccdd ffffffff 0064") + [UInt8](repeating: 0xEE, count: 100)),
        ("too-long", bytes(fromHexLiteral: "00000001 0021")),
        ("zero-length", bytes(fromHexLiteral: "00000001 0000 00000001 0001 aa")),
        ("partial", bytes(fromHexLiteral: "5e0be100 0020 0001")),
    ]
    return vectors.flatMap { name, bytes in
        [("\(name)-whole", [0, 0] + bytes), ("\(name)-chunked-32", [32, 3, 1, 4, 9] + bytes)]
    }
}
