internal import CNGHTTP2

extension HTTP2Session {
    /// Client: queues a request and returns its stream id. `headers` start with the
    /// pseudo-headers (`:method`, `:scheme`, `:path`, `:authority`); an empty `body` ends
    /// the stream with the HEADERS frame. The body is sent as the peer's flow control
    /// allows; beyond the peer's stream limit the request waits, queued, until a stream
    /// closes. Its ``HTTP2Event/response(streamID:headers:body:)`` and then its
    /// ``HTTP2Event/streamClosed(streamID:errorCode:)`` come as events.
    package func submitRequest(headers: [HTTP2Header], body: [UInt8]) throws(HTTP2Error) -> Int32 {
        guard role == .client else {
            throw HTTP2Error(.wrongRole, "submitRequest on a server session")
        }
        try checkRequestAllowed()
        let streamID = try headerFields.withFields(headers) { fields, count in submit(fields, count: count, body: body) }
        return try opened(streamID, body: body)
    }

    /// Throws unless the session can open another stream.
    private func checkRequestAllowed() throws(HTTP2Error) {
        guard nghttp2_session_check_request_allowed(session) != 0 else {
            if nghttp2_session_get_next_stream_id(session) > UInt32(Int32.max) {
                throw HTTP2Error(.streamIDsExhausted, "submitting a request")
            }
            throw HTTP2Error(.sessionClosing, "submitting a request after a GOAWAY")
        }
    }

    /// Hands the fields and a provider for `body` (none for an empty one) to nghttp2: the
    /// stream id, or nghttp2's error code.
    private func submit(_ fields: UnsafePointer<nghttp2_nv>, count: Int, body: [UInt8]) -> Int32 {
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: LibraryObject.bodyReader)
        return body.isEmpty
            ? nghttp2_submit_request(session, nil, fields, count, nil, nil)
            : nghttp2_submit_request(session, nil, fields, count, &provider, nil)
    }

    /// Records the stream nghttp2 opened (its body to send), or throws its error code.
    private func opened(_ streamID: Int32, body: [UInt8]) throws(HTTP2Error) -> Int32 {
        guard streamID > 0 else {
            throw HTTP2Error(.invalidHeader, "submitting a request", libraryCode: streamID)
        }
        state.pointee.streams.insert(streamID, outgoing: body)
        return streamID
    }
}

extension HTTP2Session {
    /// Client: queues a request whose header fields are `block`'s — `:path` replaced by
    /// `path` when given — followed by `extra`'s (e.g. an `authorization` that changes
    /// apart from the rest). Otherwise as ``submitRequest(headers:body:)``; only `path` is
    /// checked here, the blocks were checked when made. `pathIsValid` says the caller made
    /// `path` of bytes any value may hold (a device's `:path`: `/3/device/` and hex digits),
    /// so it is not checked again for every request.
    ///
    /// - Throws: ``HTTP2Error/Kind/invalidHeader`` for a `path` that cannot be a header
    ///   value, or given with a block without exactly one varying field; the errors of
    ///   ``submitRequest(headers:body:)`` for a session that cannot take a request.
    package func submitRequest(
        _ block: HTTP2HeaderBlock, path: UnsafeRawBufferPointer? = nil, pathIsValid: Bool = false,
        appending extra: HTTP2HeaderBlock? = nil, body: [UInt8]
    ) throws(HTTP2Error) -> Int32 {
        guard role == .client else {
            throw HTTP2Error(.wrongRole, "submitRequest on a server session")
        }
        try checkRequestAllowed()
        if let path {
            guard block.varyingIndices.count == 1, pathIsValid || HTTP2HeaderBlock.isValidValue(path) else {
                throw HTTP2Error(.invalidHeader, "the header field \":path\" (values have no CR, LF, NUL or surrounding whitespace)")
            }
        }
        let count = block.count + (extra?.count ?? 0)
        let streamID = withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(1, count)) { fields in
            let base = fields.baseAddress!
            base.update(from: block.fields, count: block.count)
            if let path, let index = block.varyingIndices.first {
                // nghttp2 copies the bytes and never writes through the pointer.
                if let bytes = path.baseAddress {
                    base[index].value = UnsafeMutablePointer(mutating: bytes.assumingMemoryBound(to: UInt8.self))
                }
                base[index].valuelen = path.count
            }
            if let extra { (base + block.count).update(from: extra.fields, count: extra.count) }
            // Each kept alive on its own: a tuple of the two was a copy of each (a retain and
            // a release a request).
            return withExtendedLifetime(block) { withExtendedLifetime(extra) { submit(base, count: count, body: body) } }
        }
        return try opened(streamID, body: body)
    }
}
