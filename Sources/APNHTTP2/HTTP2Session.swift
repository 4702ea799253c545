internal import CNGHTTP2

/// One HTTP/2 connection, either end, without I/O: bytes the peer sent go in through
/// ``receive(_:)``, what it said comes out of ``takeEvents()``, and the bytes to send come
/// out of ``appendOutput(to:limit:)``. nghttp2 does the framing, HPACK and flow control.
///
/// The driver loop: after reading, `receive` the bytes, handle `takeEvents()` (submitting
/// requests or responses), then write what `appendOutput` gives while ``wantsWrite``. When
/// both ``wantsRead`` and ``wantsWrite`` are false the connection is done: close it.
///
/// Not `Sendable`: one thread owns a session and makes every call on it.
package final class HTTP2Session {
    /// Which end of the connection this is.
    package let role: Role
    /// The nghttp2 session, owned here and freed in deinit.
    let session: OpaquePointer
    /// The streams and events the callbacks fill in, at the address nghttp2 holds as
    /// user_data; allocated here and freed in deinit, after the nghttp2 session.
    let state: UnsafeMutablePointer<SessionState>
    /// The session's memory (``SessionMemory``), at the address nghttp2 holds as the
    /// allocator's user data; freed in deinit, after the nghttp2 session.
    private let memory: UnsafeMutablePointer<SessionMemory>
    /// Reused buffers for header fields on their way to nghttp2.
    var headerFields = HeaderFields()
    /// The error that ended the session (the peer's, or nghttp2's own); `receive` throws it
    /// again on every later call.
    private var failure: HTTP2Error?
    /// `terminate` was called: the GOAWAY nghttp2 queues is ours, not a reaction to the peer.
    var terminatedLocally = false

    /// A session for `role` whose first output is our SETTINGS (preceded, for a client, by
    /// the connection preface), and a WINDOW_UPDATE opening the connection window to
    /// `configuration.connectionWindowSize`.
    package init(role: Role, configuration: Configuration = Configuration()) throws(HTTP2Error) {
        self.role = role
        let callbacks = try LibraryObject.callbackTable()
        let options = try LibraryObject.sessionOptions()
        state = .allocate(capacity: 1)
        state.initialize(to: SessionState(role: role, configuration: configuration))
        memory = .allocate(capacity: 1)
        memory.initialize(to: SessionMemory())
        // nghttp2 copies the allocator into the session.
        var allocator = SessionMemory.allocator(memory)
        do {
            session = try LibraryObject.create("an nghttp2 \(role) session") { [state] created in
                switch role {
                case .client: nghttp2_session_client_new3(&created, callbacks.pointer, state, options.pointer, &allocator)
                case .server: nghttp2_session_server_new3(&created, callbacks.pointer, state, options.pointer, &allocator)
                }
            }
        } catch {
            state.deinitialize(count: 1)
            state.deallocate()
            memory.pointee.releaseAll()
            memory.deinitialize(count: 1)
            memory.deallocate()
            throw error
        }
        try submitSettings(configuration)
    }

    deinit {
        nghttp2_session_del(session)
        state.deinitialize(count: 1)
        state.deallocate()
        memory.pointee.releaseAll()
        memory.deinitialize(count: 1)
        memory.deallocate()
    }

    /// Feeds bytes read from the connection; events they complete wait in ``takeEvents()``.
    ///
    /// Throws when the peer broke the protocol in a way that ends the connection (a remote
    /// ``HTTP2Error``: bad preface, connection error, flood). The session has then queued a
    /// GOAWAY: write what ``appendOutput(to:limit:)`` gives, then close. Later calls throw
    /// the same error and read nothing. Stream-level faults do not throw: the stream is
    /// reset and reported as an event.
    package func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTP2Error) {
        if let failure { throw failure }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let result = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        if result < 0 {
            throw fail(receiveFailure(code: Int32(result)))
        }
        if !terminatedLocally && libraryIsTerminating {
            let complaint = state.pointee.complaint
            throw fail(HTTP2Error(
                .protocolViolation, complaint?.message ?? "the peer's bytes broke HTTP/2; a GOAWAY is queued",
                libraryCode: complaint?.code))
        }
    }

    /// The events since the last call, oldest first.
    package func takeEvents() -> [HTTP2Event] {
        guard state.pointee.eventsTaken == 0 else {
            var rest: [HTTP2Event] = []
            while let event = nextEvent() { rest.append(event) }
            return rest
        }
        guard !state.pointee.events.isEmpty else { return [] }
        let events = state.pointee.events
        // A fresh array as large as the last batch (within reason): the next batch fills it
        // without growing step by step.
        state.pointee.events = []
        state.pointee.events.reserveCapacity(min(events.count, 4096))
        return events
    }

    /// The oldest event not yet taken, moved out to the caller; nil when none waits. A
    /// driver that handles each as it comes (`while let event = session.nextEvent()`)
    /// neither copies an event (a retain of its header list and body, and a release of
    /// each when the array of them goes) nor gets a new array per `receive`: the slots
    /// are reused. Events its handling adds (none is added outside `receive` and
    /// `appendOutput`) come after those already waiting.
    package func nextEvent() -> HTTP2Event? {
        let index = state.pointee.eventsTaken
        guard index < state.pointee.events.count else {
            if index > 0 {
                // All taken: the placeholders go, the memory stays (a burst's, within reason).
                state.pointee.events.removeAll(keepingCapacity: state.pointee.events.capacity <= 4096)
                state.pointee.eventsTaken = 0
            }
            return nil
        }
        state.pointee.eventsTaken = index + 1
        return state.pointee.events.withUnsafeMutableBufferPointer { events in
            let slot = events.baseAddress! + index
            let event = slot.move()
            slot.initialize(to: .pingAcknowledged)
            return event
        }
    }

    /// Appends bytes to send to `buffer` and returns how many. Frames are whole, and the
    /// appending stops once `limit` is reached, so a large backlog comes out in pieces of
    /// at most `limit` plus one frame (16,393 bytes); call again while ``wantsWrite``.
    package func appendOutput(to buffer: inout [UInt8], limit: Int = 64 * 1024) -> Int {
        writeOutput(limit: limit) { buffer.append(contentsOf: $0) }
    }

    /// ``appendOutput(to:limit:)`` into any buffer: hands each piece nghttp2 serialized to
    /// `write` (which copies it: the bytes are nghttp2's until the next call), and returns
    /// how many bytes it handed over. A driver with its own output buffer copies each
    /// piece once, where `Array.append(contentsOf:)` cost about 70 instructions a piece
    /// (two a request) beyond the copy (callgrind, #45).
    package func writeOutput(limit: Int = 64 * 1024, _ write: (UnsafeRawBufferPointer) -> Void) -> Int {
        var produced = 0
        while produced < limit {
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &chunk)
            guard count > 0, let chunk else {
                if count < 0 && failure == nil {
                    failure = HTTP2Error(.library, "serializing frames", libraryCode: Int32(count))
                }
                break
            }
            write(UnsafeRawBufferPointer(start: chunk, count: count))
            produced += count
        }
        return produced
    }

    /// Whether the session expects more bytes from the peer.
    package var wantsRead: Bool { nghttp2_session_want_read(session) != 0 }

    /// Whether the session has bytes to send (``appendOutput(to:limit:)`` returns them).
    /// Requests waiting for the peer's stream limit do not count until a stream closes.
    package var wantsWrite: Bool { nghttp2_session_want_write(session) != 0 }

    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS: 100 until its SETTINGS arrive (nghttp2's
    /// assumption), `UInt32.max` when it sets no limit.
    package var remoteMaxConcurrentStreams: UInt32 {
        nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
    }

    /// Streams not yet reported closed: for a client every request submitted, sent or
    /// waiting; for a server every stream the peer opened.
    package var activeStreamCount: Int { state.pointee.streams.count }

    /// A server's: the bytes a new stream reserves for its request's fields (for tests).
    var reservedRequestFieldBytes: Int { state.pointee.lastRequestFieldBytes }

    /// Whether a stream with an id up to `streamID` is still open (not yet reported closed):
    /// a server sends its GOAWAY once this is false for the last-stream-id, so that every
    /// answer it covers goes out before it. Costs a scan of the stream table.
    package func hasOpenStream(atOrBelow streamID: Int32) -> Bool {
        state.pointee.streams.containsStream(atOrBelow: streamID)
    }

    /// Records `error` as the session's failure: `receive` throws it from now on.
    private func fail(_ error: HTTP2Error) -> HTTP2Error {
        failure = error
        return error
    }
}

/// One thread owns a session: nghttp2 sessions are not thread-safe, and the callbacks write
/// the session's state without locks. The driver that owns the socket owns the session.
@available(*, unavailable)
extension HTTP2Session: Sendable {}
