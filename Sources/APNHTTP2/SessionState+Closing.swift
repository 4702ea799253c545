internal import CNGHTTP2

// How streams end, and what nghttp2 says about the peer's bytes along the way.
extension SessionState {
    /// nghttp2 closed `streamID` (both ends done, a RST_STREAM either way, a GOAWAY).
    mutating func streamClosed(streamID: Int32, errorCode: UInt32) {
        var reported = false
        guard streams.remove(streamID, reported: &reported) else { return }
        if headerBlockStream?.id == streamID { headerBlockStream = nil }
        // A client's response already reported is its stream's end, unless asked for both.
        if reported && errorCode == 0 && role == .client && !reportsCloseAfterResponse { return }
        events.append(.streamClosed(streamID: streamID, errorCode: HTTP2ErrorCode(rawValue: errorCode)))
    }

    /// nghttp2 gave up sending a frame. For a request's HEADERS that never opened its
    /// stream (a GOAWAY arrived first, or we reset it while it waited), nghttp2 closes
    /// nothing, so the stream is reported closed here: REFUSED_STREAM, as nghttp2 itself
    /// would say, or the code we reset it with.
    mutating func frameNotSent(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        guard header.type == FrameType.headers, frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST,
              nghttp2_session_find_stream(session, header.stream_id) == nil,
              let slot = streams.slot(of: header.stream_id) else { return }
        let localResetCode = streams[slot: slot].localResetCode
        streams.remove(header.stream_id)
        if headerBlockStream?.id == header.stream_id { headerBlockStream = nil }
        events.append(.streamClosed(streamID: header.stream_id, errorCode: localResetCode ?? .refusedStream))
    }

    /// nghttp2 refused a frame from the peer (a stream error it answers with RST_STREAM,
    /// or a connection error it answers with GOAWAY).
    mutating func invalidFrame(_ frame: UnsafePointer<nghttp2_frame>, code: Int32) {
        let header = frame.pointee.hd
        complaint = (code, "nghttp2 refused a frame of type \(header.type) on stream \(header.stream_id)")
    }

    /// nghttp2 explained a problem in words.
    mutating func libraryMessage(code: Int32, _ text: UnsafeRawBufferPointer) {
        complaint = (code, String(decoding: text, as: UTF8.self))
    }
}
