internal import CNGHTTP2

/// What nghttp2's callbacks read and write: the open streams, the events not yet taken, the
/// limits the peer is held to.
///
/// It lives at a fixed address that ``HTTP2Session`` allocates, passes to nghttp2 as the
/// session's user_data, and frees in its deinit after the nghttp2 session (whose callbacks
/// are the only other users of the pointer). Callbacks reach it without reference counting
/// or the dynamic exclusivity checks a class property would cost on every header field;
/// no two of them run at once, and none runs while a session method holds an access.
struct SessionState: ~Copyable {
    let role: HTTP2Session.Role
    let maxHeaderListSize: Int
    let maxBodySize: Int
    /// ``HTTP2Session/Configuration/reportsCloseAfterResponse``.
    let reportsCloseAfterResponse: Bool
    /// ``HTTP2Session/Configuration/keptResponseFields`` as bytes, for a client.
    let keptResponseFields: [[UInt8]]?
    /// Every stream the session knows of and has not reported closed.
    var streams: StreamTable
    /// Events not yet taken, oldest first; the first ``eventsTaken`` were moved out by
    /// ``HTTP2Session/nextEvent()`` (their slots hold a placeholder that owns nothing).
    var events: [HTTP2Event] = []
    var eventsTaken = 0
    /// The bytes the last complete message's fields took (a server's request, a client's
    /// response), to reserve for the next (at most ``requestFieldReservationLimit``).
    var lastRequestFieldBytes = 0
    /// The most a new stream reserves for its message's fields before they arrive.
    static let requestFieldReservationLimit = 4_096
    /// The storage of the messages handed out, reused once their readers let them go.
    var fieldStorages = FieldStorageRecycler()
    /// The stream whose header block is arriving and its slot: a block's fields come one
    /// after another for one stream (RFC 9113 §6.10), so each field need not look it up.
    /// Cleared when that stream leaves the table.
    var headerBlockStream: (id: Int32, slot: Int)?
    /// nghttp2's latest complaint about the peer's bytes: it explains the connection error
    /// `receive` throws, which nghttp2 itself reports with no reason.
    var complaint: (code: Int32, message: String)?

    init(role: HTTP2Session.Role, configuration: HTTP2Session.Configuration) {
        self.role = role
        streams = StreamTable(sequentialIDs: role == .client)
        maxHeaderListSize = Int(configuration.maxHeaderListSize)
        maxBodySize = configuration.maxBodySize
        reportsCloseAfterResponse = configuration.reportsCloseAfterResponse
        keptResponseFields = role == .client ? configuration.keptResponseFields.map { $0.filter { !$0.isEmpty }.map { Array($0.utf8) } } : nil
    }

    /// The state behind a callback's user_data.
    static func at(_ userData: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<SessionState> {
        userData!.assumingMemoryBound(to: SessionState.self)
    }
}
