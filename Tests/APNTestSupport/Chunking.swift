import APNWire

/// Bytes from hex written with optional spaces, for literal test vectors.
package func hex(_ text: String) -> [UInt8] {
    bytes(fromHexLiteral: text)
}

/// How a vector is handed to a streaming decoder.
package enum Chunking: CustomStringConvertible, Sendable {
    case whole
    case byteByByte
    case random(seed: UInt64)

    /// Every decoder is fed each vector these ways.
    package static let all: [Chunking] = [.whole, .byteByByte] + (1...8).map { .random(seed: $0 &* 7919) }

    package func split(_ bytes: [UInt8]) -> [[UInt8]] {
        switch self {
        case .whole:
            return [bytes]
        case .byteByByte:
            return bytes.map { [$0] }
        case .random(let seed):
            var generator = SplitMix64(seed: seed)
            var chunks: [[UInt8]] = []
            var start = 0
            while start < bytes.count {
                let size = Int.random(in: 1...max(1, min(17, bytes.count - start)), using: &generator)
                chunks.append(Array(bytes[start..<start + size]))
                start += size
            }
            return chunks
        }
    }

    package var description: String {
        switch self {
        case .whole: "whole"
        case .byteByByte: "byte by byte"
        case .random(let seed): "random chunks (seed \(seed))"
        }
    }
}

