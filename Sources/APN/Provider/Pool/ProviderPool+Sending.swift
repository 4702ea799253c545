import APNHTTP2
import APNWire

/// Handing ready requests to connections, and the bytes that go out.
extension ProviderPool {
    /// Gives ready requests to usable connections with room, in order.
    mutating func assignWork(now: Timestamp) {
        guard scheduler.readyCount > 0, connections.contains(where: \.isUsable) else { return }
        let token: (value: String?, renewed: Bool)
        do throws(ProviderError) {
            token = try authorization.current()
        } catch {
            for completion in scheduler.failWaiting(error) { complete(completion) }
            return
        }
        if token.renewed, let issuedAt = authorization.issuedAt { event(.tokenRenewed(issuedAt: issuedAt)) }
        let authorizationBlock: HTTP2HeaderBlock?
        do throws(HTTP2Error) {
            authorizationBlock = try authorizationHeader(token.value)
        } catch {
            let failure = ProviderError(code: .authentication, message: "the provider token cannot be sent: \(error)")
            for completion in scheduler.failWaiting(failure) { complete(completion) }
            return
        }
        for connection in connections where connection.isUsable {
            var room = connection.capacity(limit: streamLimit)
            let session = connection.session
            // Each request is written where the scheduler holds it (``ProviderScheduler/take(now:_:)``).
            requests: while room > 0,
                let (id, written) = scheduler.take(now: now, { request -> Result<(streamID: Int32, isExchange: Bool), HTTP2Error> in
                    do throws(HTTP2Error) {
                        return .success((try request.submit(on: session, appending: authorizationBlock), request.template.isExchange))
                    } catch {
                        return .failure(error)
                    }
                })
            {
                switch written {
                case .success(let (streamID, isExchange)):
                    if connection.streams.isEmpty { connection.busySince = now }
                    connection.carried += 1
                    connection.streams.insert(
                        ProviderPoolConnection.OpenStream(id: id, tokenIssuedAt: authorization.issuedAt, isExchange: isExchange),
                        for: streamID)
                    scheduler.sent(id, socket: connection.number, stream: streamID)
                    room -= 1
                case .failure(let error) where error.kind == .sessionClosing || error.kind == .streamIDsExhausted:
                    // No more streams on this connection: the request goes back to the front.
                    connection.draining = true
                    complete(scheduler.refused(id))
                    break requests
                case .failure(let error):
                    // Its header fields cannot be sent (nghttp2 refused a value): this request
                    // only; the connection goes on.
                    complete(
                        scheduler.failInFlight(
                            id, ProviderError(code: .invalidNotification, message: "a header field was refused: \(error)")))
                }
            }
            if scheduler.readyCount == 0 { break }
        }
    }

    /// The `authorization` field for provider token `value` (none without a token): made
    /// again only when the token changes.
    private mutating func authorizationHeader(_ value: String?) throws(HTTP2Error) -> HTTP2HeaderBlock? {
        guard let value else { return nil }
        if let cached = authorizationBlock, cached.headers[0].value == value { return cached }
        let block = try HTTP2HeaderBlock([HTTP2Header("authorization", value)])
        authorizationBlock = block
        return block
    }

    /// Streams per connection at most: `maxConcurrentStreams`, at least 1 (0 would leave
    /// every request waiting for good).
    var streamLimit: Int { max(1, configuration.maxConcurrentStreams) }

    /// Appends what connection `number` has to send (at most about 64 KiB); the count.
    func appendOutput(of number: Int, to buffer: inout WireBuffer) -> Int {
        connection(number)?.session.writeOutput { buffer.write($0) } ?? 0
    }

    /// Whether connection `number`'s session has bytes to send.
    func wantsWrite(_ number: Int) -> Bool {
        connection(number)?.session.wantsWrite ?? false
    }

    /// The driver flushed connection `number`: it wrote something (`progressed`) and the
    /// socket refused the rest (`blocked`), or it wrote all there was.
    mutating func flushed(_ number: Int, progressed: Bool, blocked: Bool, now: Timestamp) {
        guard let connection = connection(number) else { return }
        if progressed || !blocked { connection.lastWriteProgress = now }
        connection.writeBlocked = blocked
    }

    // MARK: Liveness

    /// Request deadlines and backoffs; PINGs; servers that stopped reading, answering or
    /// allowing streams.
    mutating func fireTimers(now: Timestamp) {
        // Connections first: a hung one is marked before its requests time out, which
        // would otherwise leave it looking idle.
        for connection in connections where connection.failure == nil {
            if connection.writeBlocked && now - connection.lastWriteProgress >= configuration.pingTimeout {
                connection.failure = .lost("the server read nothing for \(configuration.pingTimeout)")
                continue
            }
            if let busySince = connection.busySince, now - busySince >= configuration.scheduler.requestTimeout {
                connection.hung = true
                connection.failure = .lost("the server answered nothing for \(configuration.scheduler.requestTimeout)")
                continue
            }
            if connection.settingsReceived && connection.session.remoteMaxConcurrentStreams == 0
                && connection.streams.isEmpty && scheduler.readyCount > 0 && !connection.draining
            {
                connection.failure = .lost("the server allows no streams")
                continue
            }
            guard let interval = configuration.pingInterval else { continue }
            if let sent = connection.pingSentAt {
                if now - sent >= configuration.pingTimeout {
                    connection.failure = .lost("the server did not answer PING within \(configuration.pingTimeout)")
                }
            } else if now - connection.lastActivity >= silenceBeforePing(connection, interval: interval) {
                connection.session.submitPing()
                connection.pingSentAt = now
            }
        }
        for completion in scheduler.tick(now: now) { complete(completion) }
    }

    /// How long `connection` may receive nothing before it is PINGed: `pingInterval` when it
    /// is idle; at most `pingTimeout` while requests wait for answers, so that a dead server
    /// is found in twice `pingTimeout`, and the requests waiting for a stream move to
    /// another connection.
    func silenceBeforePing(_ connection: ProviderPoolConnection, interval: Duration) -> Duration {
        connection.streams.isEmpty ? interval : min(interval, configuration.pingTimeout)
    }
}
