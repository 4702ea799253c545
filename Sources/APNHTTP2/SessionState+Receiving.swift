internal import CNGHTTP2

// The receiving half of the callbacks: header blocks and bodies build up per stream and
// become one request or response event when the peer ends the stream.
extension SessionState {
    /// A HEADERS frame starts on `streamID`. A server learns of a new stream here.
    func beginHeaders(streamID: Int32, category: nghttp2_headers_category) {
        if role == .server && category == NGHTTP2_HCAT_REQUEST {
            streams[streamID] = StreamState()
        } else if let received = streams[streamID]?.headers.count {
            streams[streamID]!.blockStart = received
        }
    }

    /// One header field of `streamID`; returns nghttp2's TEMPORAL_CALLBACK_FAILURE after
    /// resetting a stream over the header list limit, which makes nghttp2 skip the rest of
    /// its block.
    func header(_ session: OpaquePointer?, streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard let stream = streams[streamID], !stream.rejected else { return 0 }
        // RFC 9113 §6.5.2: a field counts its name, its value and 32 octets of overhead.
        let size = stream.headerListSize + name.count + value.count + 32
        guard size <= maxHeaderListSize else {
            reject(session, streamID: streamID, HTTP2Error(
                .headerListTooLarge, "the header list passed the \(maxHeaderListSize)-byte maxHeaderListSize",
                streamID: streamID))
            return LibraryCode.temporalCallbackFailure
        }
        streams[streamID]!.headerListSize = size
        streams[streamID]!.headers.append(HTTP2Header(
            String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        return 0
    }

    /// Body bytes on `streamID`; a body that passes the limit resets the stream.
    func dataChunk(_ session: OpaquePointer?, streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID], !stream.rejected else { return }
        guard stream.body.count + bytes.count <= maxBodySize else {
            reject(session, streamID: streamID, HTTP2Error(
                .bodyTooLarge, "the body passed the \(maxBodySize)-byte maxBodySize", streamID: streamID))
            return
        }
        streams[streamID]!.body.append(contentsOf: bytes)
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
        guard streams[streamID]?.rejected == false, let (headers, body) = streams[streamID]?.takeMessage() else { return }
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
