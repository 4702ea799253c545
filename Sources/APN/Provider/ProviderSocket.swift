import APNHTTP2
import APNTLS

/// One HTTP/2 connection of a ``Provider``: the TLS socket, its nghttp2 session, which
/// scheduler request each open stream carries, the bytes not yet written and the PING in
/// flight. Owned by the provider's I/O thread, which alone touches it.
final class ProviderSocket {
    /// A stream in flight: the request it carries and the token it was sent with.
    struct OpenStream {
        let id: ProviderScheduler.ID
        let tokenIssuedAt: Int64?
    }

    let number: Int
    let connection: TLSConnection
    let session: HTTP2Session
    /// `host:port`, for events.
    let peer: String
    /// Open streams: the request each carries and the provider token it was sent with; a
    /// stream leaves when its answer or its end arrives.
    var streams: [Int32: OpenStream] = [:]
    /// GOAWAY received (or the connection is being given up): no new streams.
    var draining = false
    /// When bytes last arrived: the idle time before a PING.
    var lastActivity: Timestamp
    /// When bytes were last written, or the output last ran empty: a server that stops
    /// reading for `pingTimeout` with our bytes waiting is given up.
    var lastWriteProgress: Timestamp
    /// When the unanswered PING was sent.
    var pingSentAt: Timestamp?
    /// Why the connection must close, once known.
    var failure: ProviderError?
    /// The peer closed cleanly (TLS close_notify or the end of the HTTP/2 session).
    var ended = false
    /// The server's first SETTINGS arrived. Until then one stream at most: Apple's servers
    /// allow one until a provider token is verified, and nghttp2 would otherwise assume
    /// 100, which such a server refuses.
    var settingsReceived = false
    /// Answers received on this connection (a connection that ends having answered none
    /// counts as a failed attempt).
    var answered = 0

    private var output: [UInt8] = []
    private var written = 0
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(number: Int, connection: TLSConnection, session: HTTP2Session, peer: String, now: Timestamp) {
        self.number = number
        self.connection = connection
        self.session = session
        self.peer = peer
        self.lastActivity = now
        self.lastWriteProgress = now
    }

    var isUsable: Bool { failure == nil && !ended && !draining }

    /// How many more streams may be opened now: the server's limit and `limit`, less those
    /// open.
    func capacity(limit: Int) -> Int {
        guard isUsable else { return 0 }
        let allowed = settingsReceived ? min(Int(session.remoteMaxConcurrentStreams), limit) : 1
        return max(0, allowed - streams.count)
    }

    /// Bytes are waiting to be written (poll for writability).
    var hasPendingOutput: Bool { hasRefusedBytes || session.wantsWrite }

    /// Bytes the socket would not take yet (it would block): the server is not reading.
    /// Frames the session queued since the last flush are not counted: nothing has been
    /// tried for them, and a PING queued after a long idle time is no stall.
    var hasRefusedBytes: Bool { written < output.count }

    /// Writes what the session has to send until the socket would block. A failure is
    /// recorded in ``failure``.
    func flush(now: Timestamp) {
        while failure == nil {
            if written == output.count {
                output.removeAll(keepingCapacity: true)
                written = 0
                if session.appendOutput(to: &output) == 0 {
                    lastWriteProgress = now
                    return
                }
            }
            let step = output.withUnsafeBytes { bytes in
                connection.write(UnsafeRawBufferPointer(rebasing: bytes[written...]))
            }
            switch step {
            case .done(let count):
                written += count
                lastWriteProgress = now
            case .wantWrite, .wantRead: return
            case .closed: failure = .lost("the server closed the connection")
            case .failed(let error): failure = .lost("writing: \(error)")
            }
        }
    }

    /// Reads at most this many bytes a turn, so a flooding server cannot hold the thread
    /// (the rest is read next turn).
    static let readBudget = 1 << 20

    /// Reads what has arrived (up to ``readBudget``) and feeds it to the session; the events
    /// it produced.
    func readAvailable(now: Timestamp) -> [HTTP2Event] {
        var budget = Self.readBudget
        reading: while failure == nil && !ended && budget > 0 {
            let step = readBuffer.withUnsafeMutableBytes { connection.read(into: $0) }
            switch step {
            case .done(let count):
                lastActivity = now
                budget -= count
                let result = readBuffer.withUnsafeBytes { bytes in
                    Result { () throws(HTTP2Error) in try session.receive(UnsafeRawBufferPointer(rebasing: bytes[..<count])) }
                }
                if case .failure(let error) = result {
                    failure = ProviderError(code: .protocolError, message: "the server broke HTTP/2: \(error)")
                }
            case .wantRead, .wantWrite:
                break reading
            case .closed:
                ended = true
            case .failed(let error):
                failure = .lost("reading: \(error)")
            }
        }
        return session.takeEvents()
    }

    /// Closes the socket at once (the session's last frames, such as a GOAWAY, are written
    /// first when the socket takes them).
    func close(now: Timestamp) {
        flush(now: now)
        connection.close()
    }
}

extension ProviderError {
    /// The connection ended or failed.
    static func lost(_ what: String) -> ProviderError {
        ProviderError(code: .connectionFailed, message: what)
    }
}
