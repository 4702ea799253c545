/// The HTTP/2 frames a peer sent, cut from the raw bytes as they arrive (RFC 9113 §4.1: a
/// 24-bit length, a type, flags, a 31-bit stream id, then the payload), so that a test can
/// judge what went over the wire and in which order — not only what a session made of it.
package struct HTTP2FrameTap {
    /// One frame as it was on the wire.
    package struct Frame: Sendable, Equatable {
        /// The frame type: 0 DATA, 1 HEADERS, 3 RST_STREAM, 4 SETTINGS, 6 PING, 7 GOAWAY, …
        package var type: UInt8
        package var flags: UInt8
        package var streamID: Int32
        package var payload: [UInt8]

        /// Whether the END_STREAM flag (0x1) is set on a DATA or HEADERS frame.
        package var endsStream: Bool { (type == 0 || type == 1) && flags & 0x1 != 0 }
    }

    package static let data: UInt8 = 0
    package static let headers: UInt8 = 1
    package static let goaway: UInt8 = 7

    /// The frames so far, in arrival order.
    package private(set) var frames: [Frame] = []
    private var pending: [UInt8] = []

    package init() {}

    /// Adds bytes as read; complete frames join ``frames``.
    package mutating func append(_ bytes: some Collection<UInt8>) {
        pending.append(contentsOf: bytes)
        var start = 0
        while pending.count - start >= 9 {
            let length = Int(pending[start]) << 16 | Int(pending[start + 1]) << 8 | Int(pending[start + 2])
            guard pending.count - start >= 9 + length else { break }
            let stream = Int32(pending[start + 5] & 0x7F) << 24 | Int32(pending[start + 6]) << 16
                | Int32(pending[start + 7]) << 8 | Int32(pending[start + 8])
            frames.append(Frame(
                type: pending[start + 3], flags: pending[start + 4], streamID: stream,
                payload: Array(pending[(start + 9)..<(start + 9 + length)])))
            start += 9 + length
        }
        pending.removeFirst(start)
    }
}
