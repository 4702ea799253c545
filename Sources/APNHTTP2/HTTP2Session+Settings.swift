internal import CNGHTTP2

extension HTTP2Session {
    /// Queues our SETTINGS (a client also turns server push off) and widens the connection
    /// receive window; nghttp2 puts the client preface in front of them.
    func submitSettings(_ configuration: Configuration) throws(HTTP2Error) {
        var settings: [nghttp2_settings_entry] = []
        if role == .client {
            settings.append(nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0))
        }
        settings += [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: configuration.maxConcurrentStreams),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: configuration.initialWindowSize),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: configuration.maxHeaderListSize),
            // RFC 9218 §2.1: we use no RFC 7540 priorities; nghttp2 then schedules streams
            // without keeping its dependency tree.
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES.rawValue), value: 1),
        ]
        let result = nghttp2_submit_settings(session, 0, settings, settings.count)
        guard result == 0 else {
            throw HTTP2Error(.invalidArgument, "submitting SETTINGS (a window above 2³¹−1?)", libraryCode: result)
        }
        guard configuration.connectionWindowSize <= UInt32(Int32.max) else {
            throw HTTP2Error(.invalidArgument, "a connectionWindowSize above 2³¹−1")
        }
        if configuration.connectionWindowSize > 65_535 {
            let windowResult = nghttp2_session_set_local_window_size(session, 0, 0, Int32(configuration.connectionWindowSize))
            guard windowResult == 0 else {
                throw HTTP2Error(.invalidArgument, "setting the connection window", libraryCode: windowResult)
            }
        }
    }
}

extension HTTP2Session {
    /// Advertises a new SETTINGS_MAX_CONCURRENT_STREAMS: e.g. a server that allows one
    /// stream until the client has authenticated, then many (Apple's provider API with
    /// tokens). Streams the peer opens are held to the new limit at once; the peer learns
    /// of it from the SETTINGS frame (its ``HTTP2Event/remoteSettingsChanged(maxConcurrentStreams:)``).
    package func advertiseMaxConcurrentStreams(_ limit: UInt32) throws(HTTP2Error) {
        let entry = nghttp2_settings_entry(
            settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: limit)
        let result = withUnsafePointer(to: entry) { nghttp2_submit_settings(session, 0, $0, 1) }
        guard result == 0 else {
            throw HTTP2Error(.invalidArgument, "submitting SETTINGS_MAX_CONCURRENT_STREAMS \(limit)", libraryCode: result)
        }
    }
}
