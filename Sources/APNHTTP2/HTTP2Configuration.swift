extension HTTP2Session {
    /// Which end of the connection a session is.
    package enum Role: Sendable, Hashable {
        /// Sends the connection preface and requests; receives responses.
        case client
        /// Expects the connection preface; receives requests and answers them.
        case server
    }

    /// What a session advertises to its peer and the limits it holds an untrusted peer to.
    /// The defaults suit an APNs connection: small requests and responses, many in flight.
    package struct Configuration: Sendable, Hashable {
        /// SETTINGS_MAX_CONCURRENT_STREAMS we advertise: how many streams the peer may have
        /// open towards us at once. nghttp2 refuses (REFUSED_STREAM) any beyond it. 100 is
        /// the least RFC 9113 recommends; a server expecting one busy client advertises more
        /// (APNs allows up to 1,000 per connection). It means nothing for a client, whose
        /// peer cannot open streams (server push is turned off).
        package var maxConcurrentStreams: UInt32 = 100
        /// SETTINGS_INITIAL_WINDOW_SIZE we advertise: how many body bytes the peer may send
        /// on one stream before we acknowledge them. nghttp2 sends the WINDOW_UPDATE frames
        /// as bodies are received. HTTP/2's default, 65,535.
        package var initialWindowSize: UInt32 = 65_535
        /// How many body bytes the peer may send on all streams together before we
        /// acknowledge them. 1 MiB keeps 1,000 streams with 1 KiB bodies moving without
        /// waiting for WINDOW_UPDATE. HTTP/2's default, 65,535, is the least: a peer may send
        /// that much before our SETTINGS arrive, so a smaller value acts as 65,535.
        package var connectionWindowSize: UInt32 = 1 << 20
        /// SETTINGS_MAX_HEADER_LIST_SIZE we advertise and enforce: the most header bytes
        /// (each field's name and value plus 32, as RFC 9113 §6.5.2 counts them) one request
        /// or response may carry. A stream above it is reset (ENHANCE_YOUR_CALM) and
        /// reported. 16 KiB holds APNs headers, JWT included, many times over.
        package var maxHeaderListSize: UInt32 = 16_384
        /// The largest request or response body accepted on one stream; a stream whose body
        /// grows past it is reset (ENHANCE_YOUR_CALM) and reported, and the bytes received
        /// so far are dropped. 64 KiB is well above APNs' 4 KiB (5 KiB VoIP) payloads, so a
        /// gateway can still answer an oversized payload with its own 413.
        package var maxBodySize: Int = 64 * 1024
        /// For a client that reads only some response fields: their names (lowercase). A
        /// response's other regular fields still count against ``maxHeaderListSize`` but are
        /// not kept in its ``HTTP2Event/response(streamID:headers:body:)``; pseudo-header
        /// fields (`:status`) are always kept. `nil`, the default, keeps every field. A
        /// provider reads `apns-id` and `apns-unique-id` only, where a server or a proxy
        /// before it may send several more (`server`, `date`, …).
        package var keptResponseFields: [String]? = nil
        /// Whether a client's stream that ended with its complete response (reported as
        /// ``HTTP2Event/response(streamID:headers:body:)``) is then also reported
        /// ``HTTP2Event/streamClosed(streamID:errorCode:)`` with NO_ERROR. A client that
        /// takes the response as its stream's end (a provider) turns it off: one event a
        /// request fewer. A stream that ends any other way is reported as always.
        package var reportsCloseAfterResponse = true

        /// The defaults above.
        package init() {}
    }
}
