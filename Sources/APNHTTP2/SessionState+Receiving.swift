internal import APNSupport
internal import CNGHTTP2

// The receiving half of the callbacks: header blocks and bodies build up per stream and
// become one request or response event when the peer ends the stream.
extension SessionState {
    /// A HEADERS frame starts on `streamID`. A server learns of a new stream here.
    mutating func beginHeaders(streamID: Int32, category: nghttp2_headers_category) {
        if role == .server && category == NGHTTP2_HCAT_REQUEST {
            let slot = streams.insert(streamID, StreamState())
            // Room for fields like the last request's: receiving them allocates once.
            streams[slot: slot].fields = fieldStorages.list(reservingCapacity: lastRequestFieldBytes)
            headerBlockStream = (streamID, slot)
        } else if let slot = streams.slot(of: streamID) {
            // A response's first block: room for fields like the last response's.
            if role == .client && streams[slot: slot].fields.count == 0 {
                streams[slot: slot].fields = fieldStorages.list(reservingCapacity: lastRequestFieldBytes)
            }
            streams[slot: slot].startHeaderBlock()
            headerBlockStream = (streamID, slot)
        } else {
            headerBlockStream = nil
        }
    }

    /// One header field of `streamID`; returns nghttp2's TEMPORAL_CALLBACK_FAILURE after
    /// resetting a stream over the header list limit, which makes nghttp2 skip the rest of
    /// its block.
    mutating func header(_ session: OpaquePointer?, streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int32 {
        let known = headerBlockStream.flatMap { $0.id == streamID ? $0.slot : nil }
        guard let slot = known ?? streams.slot(of: streamID), !streams[slot: slot].rejected else { return 0 }
        // RFC 9113 §6.5.2: a field counts its name, its value and 32 octets of overhead.
        let size = streams[slot: slot].headerListSize + name.count + value.count + 32
        guard size <= maxHeaderListSize else {
            reject(session, slot: slot, streamID: streamID, HTTP2Error(
                .headerListTooLarge, "the header list passed the \(maxHeaderListSize)-byte maxHeaderListSize",
                streamID: streamID))
            return LibraryCode.temporalCallbackFailure
        }
        streams[slot: slot].headerListSize = size
        if let kept = keptResponseFields, name.first != UInt8(ascii: ":"),
            !kept.contains(where: { $0.count == name.count && bytesEqual($0, name.baseAddress!, count: name.count) })
        {
            return 0
        }
        // The fields stay bytes: a reader makes strings of those it keeps.
        streams[slot: slot].fields.append(name: name, value: value)
        return 0
    }

    /// Body bytes on `streamID`; a body that passes the limit resets the stream.
    mutating func dataChunk(_ session: OpaquePointer?, streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let slot = streams.slot(of: streamID), !streams[slot: slot].rejected else { return }
        guard streams[slot: slot].body.count + bytes.count <= maxBodySize else {
            reject(session, slot: slot, streamID: streamID, HTTP2Error(
                .bodyTooLarge, "the body passed the \(maxBodySize)-byte maxBodySize", streamID: streamID))
            return
        }
        streams[slot: slot].body.append(contentsOf: bytes)
    }

    /// A whole frame arrived (after its header fields or body bytes, if any).
    mutating func frameReceived(_ session: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>) {
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
    private mutating func complete(streamID: Int32) {
        guard let slot = streams.slot(of: streamID), !streams[slot: slot].rejected else { return }
        let (fields, body) = streams[slot: slot].takeMessage()
        // Capped: a peer's one large message must not make every stream opened after it
        // reserve that much before a field arrives (an APNs request's take ~700 bytes).
        lastRequestFieldBytes = min(fields.byteCount, Self.requestFieldReservationLimit)
        fieldStorages.handedOut(fields)
        streams[slot: slot].reported = true
        if role == .server {
            events.append(.request(streamID: streamID, headers: fields, body: body))
        } else {
            events.append(.response(streamID: streamID, headers: fields, body: body))
        }
    }

    /// A client drops a 1xx response's header block: the final response follows it.
    private mutating func dropInformationalResponse(streamID: Int32) {
        guard role == .client, let slot = streams.slot(of: streamID) else { return }
        let informational = streams[slot: slot].fields.field(atByte: streams[slot: slot].blockStart.bytes) { name, value in
            utf8Equals(":status", name) && value.first == UInt8(ascii: "1")
        }
        if informational == true { streams[slot: slot].removeCurrentBlock() }
    }

    /// Resets the stream in `slot` for breaking a limit and reports why; nothing more is
    /// kept for it.
    private mutating func reject(_ session: OpaquePointer?, slot: Int, streamID: Int32, _ reason: HTTP2Error) {
        streams[slot: slot].rejected = true
        _ = streams[slot: slot].takeMessage()
        streams[slot: slot].localResetCode = .enhanceYourCalm
        _ = nghttp2_submit_rst_stream(session, 0, streamID, HTTP2ErrorCode.enhanceYourCalm.rawValue)
        events.append(.streamRejected(streamID: streamID, reason: reason))
    }
}
