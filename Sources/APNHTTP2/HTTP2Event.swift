/// What an ``HTTP2Session`` learned from the peer's bytes (or from its own sending), in the
/// order it happened. ``HTTP2Session/takeEvents()`` hands them out.
package enum HTTP2Event: Sendable, Equatable {
    /// Server: a complete request (the peer ended its stream), its fields as received.
    /// Answer it with ``HTTP2Session/submitResponse(streamID:headers:body:)``.
    case request(streamID: Int32, headers: HTTP2HeaderList, body: [UInt8])
    /// Client: a complete response to the request on `streamID`.
    case response(streamID: Int32, headers: HTTP2HeaderList, body: [UInt8])
    /// The peer exceeded a limit on `streamID` (`reason.kind` is ``HTTP2Error/Kind/headerListTooLarge``
    /// or ``HTTP2Error/Kind/bodyTooLarge``): the session reset the stream with
    /// ENHANCE_YOUR_CALM, so no request or response event comes for it; its
    /// ``streamClosed(streamID:errorCode:)`` follows.
    case streamRejected(streamID: Int32, reason: HTTP2Error)
    /// The stream ended. Every stream the session knows of ends with exactly one of these:
    /// every stream `submitRequest` returned, every stream a peer's request opened — except
    /// a client's stream answered whole, when its session was configured not to report it
    /// (``HTTP2Session/Configuration/reportsCloseAfterResponse``).
    /// ``HTTP2ErrorCode/noError`` after a complete exchange; ``HTTP2ErrorCode/refusedStream``
    /// when the peer did not process it (above a GOAWAY's last-stream-id, or never sent
    /// because of one), so it may be retried; otherwise the code of the RST_STREAM either
    /// side sent.
    case streamClosed(streamID: Int32, errorCode: HTTP2ErrorCode)
    /// The peer sent GOAWAY: it processes no stream above `lastStreamID` (those are closed
    /// with REFUSED_STREAM right after this event) and accepts no new ones.
    case goaway(lastStreamID: Int32, errorCode: HTTP2ErrorCode, debugData: [UInt8])
    /// The peer answered a PING sent with ``HTTP2Session/submitPing()``.
    case pingAcknowledged
    /// The peer sent SETTINGS; `maxConcurrentStreams` is its SETTINGS_MAX_CONCURRENT_STREAMS
    /// now (`UInt32.max` when it sets no limit). A client keeps that many requests in
    /// flight at most; nghttp2 holds back any more until streams close.
    case remoteSettingsChanged(maxConcurrentStreams: UInt32)
}
