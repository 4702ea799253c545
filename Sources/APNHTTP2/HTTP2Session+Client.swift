internal import CNGHTTP2

extension HTTP2Session {
    /// Client: queues a request and returns its stream id. `headers` start with the
    /// pseudo-headers (`:method`, `:scheme`, `:path`, `:authority`); an empty `body` ends
    /// the stream with the HEADERS frame. The body is sent as the peer's flow control
    /// allows; beyond the peer's stream limit the request waits, queued, until a stream
    /// closes. Its ``HTTP2Event/response(streamID:headers:body:)`` and then its
    /// ``HTTP2Event/streamClosed(streamID:errorCode:)`` come as events.
    public func submitRequest(headers: [HTTP2Header], body: [UInt8]) throws(HTTP2Error) -> Int32 {
        guard role == .client else {
            throw HTTP2Error(.wrongRole, "submitRequest on a server session")
        }
        guard nghttp2_session_check_request_allowed(session) != 0 else {
            if nghttp2_session_get_next_stream_id(session) > UInt32(Int32.max) {
                throw HTTP2Error(.streamIDsExhausted, "submitting a request")
            }
            throw HTTP2Error(.sessionClosing, "submitting a request after a GOAWAY")
        }
        let streamID = try headerFields.withFields(headers) { fields, count in
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: CallbackTable.bodyReader)
            return body.isEmpty
                ? nghttp2_submit_request(session, nil, fields, count, nil, nil)
                : nghttp2_submit_request(session, nil, fields, count, &provider, nil)
        }
        guard streamID > 0 else {
            throw HTTP2Error(.invalidHeader, "submitting a request", libraryCode: streamID)
        }
        var stream = StreamState(outgoing: body)
        // Room for a response's header fields (APNs sends three or four), allocated once.
        stream.headers.reserveCapacity(8)
        state.streams[streamID] = stream
        return streamID
    }
}
