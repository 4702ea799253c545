internal import CNGHTTP2

// nghttp2's C enums arrive in Swift as structs with a raw value of whichever integer type
// the compiler picked; these give them the types the frame fields and return values use.

/// Frame types, as in `nghttp2_frame_hd.type`.
enum FrameType {
    static let data = UInt8(NGHTTP2_DATA.rawValue)
    static let headers = UInt8(NGHTTP2_HEADERS.rawValue)
    static let settings = UInt8(NGHTTP2_SETTINGS.rawValue)
    static let ping = UInt8(NGHTTP2_PING.rawValue)
    static let goaway = UInt8(NGHTTP2_GOAWAY.rawValue)
}

/// Frame flags, as in `nghttp2_frame_hd.flags`.
enum FrameFlag {
    static let endStream = UInt8(NGHTTP2_FLAG_END_STREAM.rawValue)
    static let ack = UInt8(NGHTTP2_FLAG_ACK.rawValue)
}

/// Return values of nghttp2 calls and of our callbacks.
enum LibraryCode {
    static let temporalCallbackFailure = NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
    static let badClientMagic = Int32(NGHTTP2_ERR_BAD_CLIENT_MAGIC.rawValue)
    static let flooded = Int32(NGHTTP2_ERR_FLOODED.rawValue)
    static let invalidArgument = Int32(NGHTTP2_ERR_INVALID_ARGUMENT.rawValue)
}

/// nghttp2's text for one of its error codes.
func libraryErrorText(_ code: Int32) -> String {
    String(cString: nghttp2_strerror(code))
}
