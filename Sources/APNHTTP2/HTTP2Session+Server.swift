internal import CNGHTTP2

extension HTTP2Session {
    /// Server: queues the response to the request on `streamID`. `headers` start with
    /// `:status`; an empty `body` ends the stream with the HEADERS frame. The body is sent
    /// as the peer's flow control allows. Throws ``HTTP2Error/Kind/streamClosed`` when the
    /// stream has closed meanwhile (the peer reset it: its `streamClosed` event is pending).
    package func submitResponse(streamID: Int32, headers: [HTTP2Header], body: [UInt8]) throws(HTTP2Error) {
        guard role == .server else {
            throw HTTP2Error(.wrongRole, "submitResponse on a client session", streamID: streamID)
        }
        guard let slot = state.pointee.streams.slot(of: streamID), !state.pointee.streams[slot: slot].rejected else {
            throw HTTP2Error(.streamClosed, "submitting a response", streamID: streamID)
        }
        state.pointee.streams[slot: slot].outgoing = body
        let result = try headerFields.withFields(headers) { fields, count in
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: LibraryObject.bodyReader)
            return body.isEmpty
                ? nghttp2_submit_response(session, streamID, fields, count, nil)
                : nghttp2_submit_response(session, streamID, fields, count, &provider)
        }
        guard result == 0 else {
            state.pointee.streams[slot: slot].outgoing = []
            let kind: HTTP2Error.Kind = result == LibraryCode.invalidArgument ? .invalidHeader : .streamClosed
            throw HTTP2Error(kind, "submitting a response", streamID: streamID, libraryCode: result)
        }
    }
}

extension HTTP2Session {
    /// Server: queues a response whose header fields are `block`'s, its varying fields'
    /// values (``HTTP2HeaderBlock/init(_:varying:)``) taken from `values` in order.
    /// Otherwise as ``submitResponse(streamID:headers:body:)``; only `values` are checked
    /// here, the block was checked when made.
    ///
    /// - Throws: ``HTTP2Error/Kind/invalidHeader`` for a value that cannot be a header value,
    ///   or a count of values other than the block's varying fields; the errors of
    ///   ``submitResponse(streamID:headers:body:)`` otherwise.
    package func submitResponse(streamID: Int32, _ block: HTTP2HeaderBlock, values: [String], body: [UInt8]) throws(HTTP2Error) {
        let byteCount = values.reduce(0) { $0 + $1.utf8.count }
        try withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: max(1, values.count)) {
            (valueBytes) throws(HTTP2Error) in
            try withUnsafeTemporaryAllocation(byteCount: max(1, byteCount), alignment: 1) { (bytes) throws(HTTP2Error) in
                // The values copied side by side onto the stack.
                var cursor = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                for (index, value) in values.enumerated() {
                    let start = cursor
                    cursor = HTTP2HeaderBlock.copyUTF8(of: value, to: cursor)
                    valueBytes.initializeElement(at: index, to: UnsafeRawBufferPointer(start: start, count: cursor - start))
                }
                try submitResponse(
                    streamID: streamID, block, valueBytes: UnsafeBufferPointer(rebasing: valueBytes[..<values.count]), body: body)
            }
        }
    }

    /// ``submitResponse(streamID:_:values:body:)`` with the values as bytes, valid for the
    /// call (nghttp2 copies them): a value written straight to the stack — a gateway's
    /// `apns-id` from its 128 bits — costs no string.
    package func submitResponse(
        streamID: Int32, _ block: HTTP2HeaderBlock, valueBytes values: UnsafeBufferPointer<UnsafeRawBufferPointer>, body: [UInt8]
    ) throws(HTTP2Error) {
        guard role == .server else {
            throw HTTP2Error(.wrongRole, "submitResponse on a client session", streamID: streamID)
        }
        guard values.count == block.varyingIndices.count else {
            throw HTTP2Error(
                .invalidHeader, "\(values.count) values for a block of \(block.varyingIndices.count) varying fields",
                streamID: streamID)
        }
        guard let slot = state.pointee.streams.slot(of: streamID), !state.pointee.streams[slot: slot].rejected else {
            throw HTTP2Error(.streamClosed, "submitting a response", streamID: streamID)
        }
        let result = try withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(1, block.count)) {
            (fields) throws(HTTP2Error) -> Int32 in
            let base = fields.baseAddress!
            base.update(from: block.fields, count: block.count)
            for (value, index) in zip(values, block.varyingIndices) {
                guard HTTP2HeaderBlock.isValidValue(value) else {
                    throw HTTP2Error(
                        .invalidHeader, "the header field \"\(block.headers[index].name)\" (no CR, LF, NUL or surrounding whitespace)",
                        streamID: streamID)
                }
                // nghttp2 copies the value (the block's fields carry no NO_COPY flag). An
                // empty one keeps the block's own (empty) value's pointer.
                if let start = value.baseAddress {
                    base[index].value = UnsafeMutablePointer(mutating: start.assumingMemoryBound(to: UInt8.self))
                }
                base[index].valuelen = value.count
            }
            state.pointee.streams[slot: slot].outgoing = body
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: LibraryObject.bodyReader)
            return withExtendedLifetime(block) {
                body.isEmpty
                    ? nghttp2_submit_response(session, streamID, base, block.count, nil)
                    : nghttp2_submit_response(session, streamID, base, block.count, &provider)
            }
        }
        guard result == 0 else {
            state.pointee.streams[slot: slot].outgoing = []
            let kind: HTTP2Error.Kind = result == LibraryCode.invalidArgument ? .invalidHeader : .streamClosed
            throw HTTP2Error(kind, "submitting a response", streamID: streamID, libraryCode: result)
        }
    }
}
