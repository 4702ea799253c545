internal import CNGHTTP2

/// What nghttp2's callbacks read and write: the open streams, the events not yet taken, the
/// limits the peer is held to. The callbacks find it through the nghttp2 session's
/// user_data pointer, unretained: ``HTTP2Session`` owns both the nghttp2 session and this
/// object, and frees the nghttp2 session (whose callbacks are the only users of the
/// pointer) in its deinit, before this object goes.
final class SessionState {
    let role: HTTP2Session.Role
    let maxHeaderListSize: Int
    let maxBodySize: Int
    /// Every stream the session knows of and has not reported closed.
    var streams: [Int32: StreamState] = [:]
    /// Events not yet taken, oldest first.
    var events: [HTTP2Event] = []
    /// nghttp2's latest complaint about the peer's bytes: it explains the connection error
    /// `receive` throws, which nghttp2 itself reports with no reason.
    var complaint: (code: Int32, message: String)?

    init(role: HTTP2Session.Role, configuration: HTTP2Session.Configuration) {
        self.role = role
        maxHeaderListSize = Int(configuration.maxHeaderListSize)
        maxBodySize = configuration.maxBodySize
    }

    /// The object behind a callback's user_data.
    static func from(_ userData: UnsafeMutableRawPointer?) -> SessionState {
        Unmanaged<SessionState>.fromOpaque(userData!).takeUnretainedValue()
    }
}
