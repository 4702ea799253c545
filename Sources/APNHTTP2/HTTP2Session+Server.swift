internal import CNGHTTP2

extension HTTP2Session {
    /// Server: queues the response to the request on `streamID`. `headers` start with
    /// `:status`; an empty `body` ends the stream with the HEADERS frame. The body is sent
    /// as the peer's flow control allows. Throws ``HTTP2Error/Kind/streamClosed`` when the
    /// stream has closed meanwhile (the peer reset it: its `streamClosed` event is pending).
    public func submitResponse(streamID: Int32, headers: [HTTP2Header], body: [UInt8]) throws(HTTP2Error) {
        guard role == .server else {
            throw HTTP2Error(.wrongRole, "submitResponse on a client session", streamID: streamID)
        }
        guard state.streams[streamID]?.respond(with: body) == true else {
            throw HTTP2Error(.streamClosed, "submitting a response", streamID: streamID)
        }
        let result = try headerFields.withFields(headers) { fields, count in
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: CallbackTable.bodyReader)
            return body.isEmpty
                ? nghttp2_submit_response(session, streamID, fields, count, nil)
                : nghttp2_submit_response(session, streamID, fields, count, &provider)
        }
        guard result == 0 else {
            state.streams[streamID]?.outgoing = []
            let kind: HTTP2Error.Kind = result == LibraryCode.invalidArgument ? .invalidHeader : .streamClosed
            throw HTTP2Error(kind, "submitting a response", streamID: streamID, libraryCode: result)
        }
    }
}
