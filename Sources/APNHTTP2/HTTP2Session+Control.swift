internal import CNGHTTP2

// Calls both ends make: resets, PING, GOAWAY.
extension HTTP2Session {
    /// Resets `streamID` with `errorCode` (RST_STREAM). The peer sees the stream closed with
    /// that code, and so do we: its ``HTTP2Event/streamClosed(streamID:errorCode:)`` follows
    /// once the frame is sent, or at once for a request not sent yet. A stream that is not
    /// open is left alone.
    package func resetStream(_ streamID: Int32, errorCode: HTTP2ErrorCode) {
        guard let slot = state.pointee.streams.slot(of: streamID) else { return }
        state.pointee.streams[slot: slot].localResetCode = errorCode
        _ = nghttp2_submit_rst_stream(session, 0, streamID, errorCode.rawValue)
    }

    /// Sends a PING; ``HTTP2Event/pingAcknowledged`` comes when the peer answers. The
    /// driver times the answer: a peer that never answers is a dead connection.
    package func submitPing() {
        // nghttp2 fails this only when out of memory, which Swift's allocations would trap on.
        _ = nghttp2_submit_ping(session, 0, nil)
    }

    /// Sends a GOAWAY: the peer may open no new stream, and streams above `lastStreamID`
    /// are refused (we close them with REFUSED_STREAM, the peer does too, and may retry them
    /// elsewhere). nil means the last stream the peer opened that we processed. Streams at
    /// or below it carry on; the session ends when they have all closed. A server may send
    /// two: first with `Int32.max` (RFC 9113 §6.8's graceful shutdown), then the real one.
    package func submitGoaway(errorCode: HTTP2ErrorCode, lastStreamID: Int32? = nil, debugData: [UInt8] = []) throws(HTTP2Error) {
        let last = lastStreamID ?? nghttp2_session_get_last_proc_stream_id(session)
        let result = nghttp2_submit_goaway(session, 0, last, errorCode.rawValue, debugData, debugData.count)
        guard result == 0 else {
            throw HTTP2Error(.invalidArgument, "submitting GOAWAY with last-stream-id \(last) and \(debugData.count) bytes of debug data (the id must be one the peer opened)", libraryCode: result)
        }
    }

    /// Ends the connection: a GOAWAY with `errorCode` naming the last stream processed, and
    /// nothing read or sent after it. Once ``appendOutput(to:limit:)`` has given the GOAWAY,
    /// ``wantsRead`` and ``wantsWrite`` are false: close the connection. Streams still open
    /// get no further events; their owner fails them.
    package func terminate(errorCode: HTTP2ErrorCode) {
        terminatedLocally = true
        // nghttp2 fails this only when out of memory, which Swift's allocations would trap on.
        _ = nghttp2_session_terminate_session(session, errorCode.rawValue)
    }
}
