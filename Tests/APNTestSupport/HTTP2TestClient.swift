import APNSupport
package import APNHTTP2
package import APNTLS

/// An HTTP/2 client for tests, built from a ``TLSConnection`` and an ``HTTP2Session``: it
/// submits requests and drives the connection (non-blocking steps, `poll()` with a
/// deadline, never a sleep) until what the test waits for has happened.
package final class HTTP2TestClient {
    /// The TLS connection, handshake done.
    package let connection: TLSConnection
    /// The client session.
    package let session: HTTP2Session

    /// A response as it arrived.
    package struct Response: Sendable, Equatable {
        /// `:status`.
        package var status: Int
        /// Every header field, `:status` included.
        package var headers: [HTTP2Header]
        /// The body.
        package var body: [UInt8]

        /// The `reason` of a JSON body such as `{"reason":"BadDeviceToken"}`, if any.
        package var reason: String? { Self.member("reason", in: body) }

        /// The `timestamp` of a 410 body, if any.
        package var timestamp: Int64? { Self.member("timestamp", in: body).flatMap { Int64($0) } }

        /// A member of a flat JSON object of strings and integers: enough for Apple's bodies.
        private static func member(_ name: String, in body: [UInt8]) -> String? {
            let text = String(decoding: body, as: UTF8.self)
            guard let key = text.firstRange(of: "\"\(name)\":") else { return nil }
            let rest = text[key.upperBound...]
            if rest.first == "\"" {
                return rest.dropFirst().prefix { $0 != "\"" }.description
            }
            return rest.prefix { $0.isNumber || $0 == "-" }.description
        }
    }

    /// How the connection ended, when it has.
    package enum End: Sendable, Equatable {
        /// The server closed (`clean`: with close_notify).
        case closed(clean: Bool)
        /// The connection failed (a reset is `.connectionReset`).
        case failed(TLSError.Kind)
        /// The server broke HTTP/2.
        case protocolError
    }

    /// Responses by stream.
    package private(set) var responses: [Int32: Response] = [:]
    /// Streams that ended, with the code they ended with (NO_ERROR after a response).
    package private(set) var closedStreams: [Int32: HTTP2ErrorCode] = [:]
    /// The server's GOAWAY, if one came.
    package private(set) var goaway: (lastStreamID: Int32, errorCode: HTTP2ErrorCode, debugData: [UInt8])?
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS, once its SETTINGS came.
    package private(set) var serverMaxConcurrentStreams: UInt32?
    /// How the connection ended; `nil` while it is open.
    package private(set) var end: End?
    /// When `false`, ``run(timeout:until:)`` writes but never reads: a client that stops
    /// reading, so the server's writes back up.
    package var reads = true
    /// The frames the server sent, as they were on the wire, when ``tapsFrames`` is set
    /// before they arrive.
    package private(set) var tap = HTTP2FrameTap()
    /// Keep the server's raw frames in ``tap`` (off by default: load tests need not).
    package var tapsFrames = false

    private var output: [UInt8] = []
    private var written = 0
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Wraps a connection whose handshake is done; nothing is sent until ``run(timeout:until:)``.
    package init(_ connection: TLSConnection, configuration: HTTP2Session.Configuration = .init()) throws {
        self.connection = connection
        session = try HTTP2Session(role: .client, configuration: configuration)
    }

    /// Connects to `127.0.0.1:port` with `context` (which should offer ALPN `h2`) and
    /// completes the TLS handshake.
    package static func connect(
        port: UInt16, context: TLSClientContext, configuration: HTTP2Session.Configuration = .init(),
        timeout: Duration = .seconds(5)
    ) throws -> HTTP2TestClient {
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: port, context: context, timeout: timeout)
        try connection.handshake(deadline: .now + timeout)
        return try HTTP2TestClient(connection, configuration: configuration)
    }

    /// Queues a request; returns its stream id.
    @discardableResult
    package func submit(headers: [HTTP2Header], body: [UInt8]) throws -> Int32 {
        try session.submitRequest(headers: headers, body: body)
    }

    /// Queues bytes to write as they are, after what the session has queued before them
    /// (garbage, hand-made frames).
    package func writeRaw(_ bytes: [UInt8]) {
        output += bytes
    }

    /// Drives the connection until `condition` holds, the connection ends or `timeout`
    /// passes; returns whether `condition` held.
    @discardableResult
    package func run(timeout: Duration = .seconds(10), until condition: () -> Bool) throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard end == nil else { return false }
            try flush()
            guard end == nil else { return false }
            let blocked = written < output.count
            guard ContinuousClock.now < deadline else { return false }
            // At most a slice, so that a condition another thread fulfils is seen.
            _ = try connection.waitUntil(readable: reads, writable: blocked, deadline: min(deadline, .now + .milliseconds(50)))
            if reads { readAvailable() }
        }
        return true
    }

    /// Drives the connection until every stream in `streams` has ended; returns whether they did.
    @discardableResult
    package func waitForStreams(_ streams: some Collection<Int32>, timeout: Duration = .seconds(10)) throws -> Bool {
        try run(timeout: timeout) { streams.allSatisfy { closedStreams[$0] != nil } }
    }

    /// Sends one request and waits for its response (`nil` when its stream ended without one).
    package func exchange(headers: [HTTP2Header], body: [UInt8], timeout: Duration = .seconds(10)) throws -> Response? {
        let stream = try submit(headers: headers, body: body)
        try waitForStreams([stream], timeout: timeout)
        return responses[stream]
    }

    /// Waits until the server has closed or failed the connection (reading and dropping
    /// whatever it sends), or `timeout` passes; returns how it ended.
    package func waitForEnd(timeout: Duration = .seconds(10)) throws -> End? {
        try run(timeout: timeout) { end != nil }
        return end
    }

    private func flush() throws {
        while end == nil {
            if written == output.count {
                output.removeAll(keepingCapacity: true)
                written = 0
                if session.appendOutput(to: &output) == 0 { return }
            }
            let step = output.withUnsafeBytes { connection.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }
            switch step {
            case .done(let count): written += count
            case .wantRead, .wantWrite: return
            case .closed(let clean): end = .closed(clean: clean)
            case .failed(let error): end = .failed(error.kind)
            }
        }
    }

    private func readAvailable() {
        let step = buffer.withUnsafeMutableBytes { connection.read(into: $0) }
        switch step {
        case .done(let count):
            if tapsFrames { tap.append(buffer[..<count]) }
            let failed = buffer.withUnsafeBytes { bytes in
                (try? session.receive(UnsafeRawBufferPointer(rebasing: bytes[..<count]))) == nil
            }
            note(session.takeEvents())
            if failed { end = .protocolError }
        case .wantRead, .wantWrite:
            break
        case .closed(let clean):
            end = .closed(clean: clean)
        case .failed(let error):
            end = .failed(error.kind)
        }
    }

    private func note(_ events: [HTTP2Event]) {
        for event in events {
            switch event {
            case .response(let streamID, let headers, let body):
                responses[streamID] = Response(status: Int(headers[":status"] ?? "") ?? 0, headers: Array(headers), body: body)
            case .streamClosed(let streamID, let errorCode):
                closedStreams[streamID] = errorCode
            case .goaway(let lastStreamID, let errorCode, let debugData):
                goaway = (lastStreamID, errorCode, debugData)
            case .remoteSettingsChanged(let limit):
                serverMaxConcurrentStreams = limit
            case .streamRejected, .request, .pingAcknowledged:
                break
            }
        }
    }
}
