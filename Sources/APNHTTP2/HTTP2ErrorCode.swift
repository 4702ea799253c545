/// An HTTP/2 error code (RFC 9113 §7), as carried by RST_STREAM and GOAWAY frames.
///
/// A struct rather than an enum so that a code this package does not name still arrives
/// intact (``rawValue``) instead of failing to decode.
package struct HTTP2ErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code on the wire.
    package var rawValue: UInt32

    /// The code `rawValue`, named or not.
    package init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// NO_ERROR (0x0): a graceful close, or a stream that ended normally.
    package static let noError = HTTP2ErrorCode(rawValue: 0x0)
    /// PROTOCOL_ERROR (0x1).
    package static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    /// INTERNAL_ERROR (0x2).
    package static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    /// FLOW_CONTROL_ERROR (0x3).
    package static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    /// SETTINGS_TIMEOUT (0x4).
    package static let settingsTimeout = HTTP2ErrorCode(rawValue: 0x4)
    /// STREAM_CLOSED (0x5).
    package static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    /// FRAME_SIZE_ERROR (0x6).
    package static let frameSizeError = HTTP2ErrorCode(rawValue: 0x6)
    /// REFUSED_STREAM (0x7): the peer processed nothing of the stream, so the request can be
    /// sent again, on this connection or another. Also reported for streams above the
    /// last-stream-id of a GOAWAY, and for requests a GOAWAY stopped before they were sent.
    package static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    /// CANCEL (0x8).
    package static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    /// COMPRESSION_ERROR (0x9).
    package static let compressionError = HTTP2ErrorCode(rawValue: 0x9)
    /// CONNECT_ERROR (0xa).
    package static let connectError = HTTP2ErrorCode(rawValue: 0xA)
    /// ENHANCE_YOUR_CALM (0xb): sent when a peer exceeds one of our limits (header list or
    /// body size; nghttp2's flood protections).
    package static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xB)
    /// INADEQUATE_SECURITY (0xc).
    package static let inadequateSecurity = HTTP2ErrorCode(rawValue: 0xC)
    /// HTTP_1_1_REQUIRED (0xd).
    package static let http11Required = HTTP2ErrorCode(rawValue: 0xD)

    private static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
        "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
        "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]

    /// The RFC's name, e.g. "REFUSED_STREAM", or "unknown (0x…)".
    package var description: String {
        rawValue < Self.names.count ? Self.names[Int(rawValue)] : "unknown (0x\(String(rawValue, radix: 16)))"
    }
}
