internal import CNGHTTP2

extension LibraryObject {
    /// An `nghttp2_session_callbacks` with every callback the session uses. nghttp2 copies
    /// the table into each session it creates, so this lives only as long as `init` needs
    /// it. Each callback is a thin C function that finds the ``SessionState`` behind
    /// user_data and calls the Swift method that does the work.
    static func callbackTable() throws(HTTP2Error) -> LibraryObject {
        let table = try LibraryObject(
            "nghttp2 callbacks", create: { nghttp2_session_callbacks_new(&$0) }, delete: { nghttp2_session_callbacks_del($0) })
        let callbacks = table.pointer
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame, frame.pointee.hd.type == FrameType.headers else { return 0 }
            SessionState.at(userData).pointee.beginHeaders(streamID: frame.pointee.hd.stream_id, category: frame.pointee.headers.cat)
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { session, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, frame.pointee.hd.type == FrameType.headers else { return 0 }
            return SessionState.at(userData).pointee.header(
                session, streamID: frame.pointee.hd.stream_id,
                name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength))
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { session, _, streamID, data, length, userData in
            SessionState.at(userData).pointee.dataChunk(session, streamID: streamID, UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { session, frame, userData in
            if let frame {
                SessionState.at(userData).pointee.frameReceived(session, frame)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            SessionState.at(userData).pointee.streamClosed(streamID: streamID, errorCode: errorCode)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { session, frame, _, userData in
            if let frame {
                SessionState.at(userData).pointee.frameNotSent(session, frame)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, frame, code, userData in
            if let frame {
                SessionState.at(userData).pointee.invalidFrame(frame, code: code)
            }
            return 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, code, message, length, userData in
            let text = UnsafeRawBufferPointer(start: message, count: message == nil ? 0 : length)
            SessionState.at(userData).pointee.libraryMessage(code: code, text)
            return 0
        }
        return table
    }

    /// The data provider every body is sent through: nghttp2 calls it as flow control
    /// allows, and it copies from the stream's ``StreamState/outgoing`` bytes.
    static let bodyReader: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        SessionState.at(userData).pointee.readBody(streamID: streamID, into: buffer!, length: length, flags: flags!)
    }
}
