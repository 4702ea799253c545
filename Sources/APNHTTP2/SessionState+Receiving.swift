internal import CNGHTTP2

// The receiving half of the callbacks: header blocks and bodies build up per stream and
// become one request or response event when the peer ends the stream.
extension SessionState {
    /// A HEADERS frame starts on `streamID`. A server learns of a new stream here.
    func beginHeaders(streamID: Int32, category: nghttp2_headers_category) {
        if role == .server && category == NGHTTP2_HCAT_REQUEST {
            streams[streamID] = StreamState(expectingHeaders: true)
        } else {
            streams[streamID]?.startHeaderBlock()
        }
    }

    /// One header field of `streamID`; returns nghttp2's TEMPORAL_CALLBACK_FAILURE after
    /// resetting a stream over the header list limit, which makes nghttp2 skip the rest of
    /// its block. The stream is looked up once and changed in place: this runs for every
    /// field of every message.
    func header(_ session: OpaquePointer?, streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard streams[streamID]?.addHeader(name: name, value: value, limit: maxHeaderListSize) == false else { return 0 }
        reject(session, streamID: streamID, HTTP2Error(
            .headerListTooLarge, "the header list passed the \(maxHeaderListSize)-byte maxHeaderListSize",
            streamID: streamID))
        return LibraryCode.temporalCallbackFailure
    }

    /// Body bytes on `streamID`; a body that passes the limit resets the stream.
    func dataChunk(_ session: OpaquePointer?, streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard streams[streamID]?.appendBody(bytes, limit: maxBodySize) == false else { return }
        reject(session, streamID: streamID, HTTP2Error(
            .bodyTooLarge, "the body passed the \(maxBodySize)-byte maxBodySize", streamID: streamID))
    }

    /// A whole frame arrived (after its header fields or body bytes, if any).
    func frameReceived(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        switch header.type {
        case FrameType.headers, FrameType.data:
            if header.flags & FrameFlag.endStream != 0 {
                complete(streamID: header.stream_id)
            } else if header.type == FrameType.headers {
                dropInformationalResponse(streamID: header.stream_id)
            }
        case FrameType.settings where header.flags & FrameFlag.ack == 0:
            let limit = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
            events.append(.remoteSettingsChanged(maxConcurrentStreams: limit))
        case FrameType.ping where header.flags & FrameFlag.ack != 0:
            events.append(.pingAcknowledged)
        case FrameType.goaway:
            let goaway = frame.pointee.goaway
            let debugData = goaway.opaque_data.map { Array(UnsafeBufferPointer(start: $0, count: goaway.opaque_data_len)) } ?? []
            events.append(.goaway(
                lastStreamID: goaway.last_stream_id, errorCode: HTTP2ErrorCode(rawValue: goaway.error_code),
                debugData: debugData))
        default:
            break
        }
    }

    /// The peer ended `streamID`: its message is complete.
    private func complete(streamID: Int32) {
        guard let (headers, body) = streams[streamID]?.takeAcceptedMessage() else { return }
        events.append(role == .server
            ? .request(streamID: streamID, headers: headers, body: body)
            : .response(streamID: streamID, headers: headers, body: body))
    }

    /// A client drops a 1xx response's header block: the final response follows it.
    private func dropInformationalResponse(streamID: Int32) {
        guard role == .client, let stream = streams[streamID], stream.blockStart < stream.headers.count else { return }
        let first = stream.headers[stream.blockStart]
        if first.name == ":status" && first.value.hasPrefix("1") {
            streams[streamID]!.headers.removeSubrange(stream.blockStart...)
        }
    }

    /// Resets `streamID` for breaking a limit and reports why; nothing more is kept for it.
    private func reject(_ session: OpaquePointer?, streamID: Int32, _ reason: HTTP2Error) {
        streams[streamID]!.rejected = true
        _ = streams[streamID]!.takeMessage()
        streams[streamID]!.localResetCode = .enhanceYourCalm
        _ = nghttp2_submit_rst_stream(session, 0, streamID, HTTP2ErrorCode.enhanceYourCalm.rawValue)
        events.append(.streamRejected(streamID: streamID, reason: reason))
    }
}
