import APNHTTP2
import APNTLS
import Dispatch
import Glibc

/// A provider's I/O thread: it alone owns the scheduler, the connections and their HTTP/2
/// sessions, and the provider token. Other threads reach it through the inbox; it reports
/// through completions (called here, each quick: a continuation resumed, a counter
/// decremented) and events (batched onto the callback queue once per turn).
///
/// Each turn: take commands; read what arrived and act on each answer; time out, back
/// off, ping; close what ended; give ready requests to connections with room; open a
/// connection when requests are left and every open one is full; write; sleep in `poll`
/// until a socket, the inbox or the next deadline wakes it.
struct ProviderLoop: ~Copyable {
    private let options: Provider.Options
    private let inbox: CommandInbox<ProviderCommand>
    private let connector: ProviderConnector
    private let clock: ConnectionClock
    private let hub: ListenerHub<ProviderEvent>
    private let queue: DispatchQueue
    private let authorization: ProviderAuthorization
    private let sessionConfiguration: HTTP2Session.Configuration
    private var scheduler: ProviderScheduler
    private var sockets: [ProviderSocket] = []
    /// The request's header fields plus `authorization`, reused from request to request.
    private var headerScratch: [HTTP2Header] = []
    private var readable: Set<Int> = []
    private var connecting = false
    private var attempts = 0
    private var failedAttempts = 0
    private var nextAttemptAt: Timestamp?
    private var nextSocketNumber = 0
    private var closeReplies: [@Sendable () -> Void] = []
    /// `close()` was called: new requests are refused.
    private var closing = false
    /// Everything was answered and the connections are closed.
    private var closed = false
    /// The provider is gone: once closed, the thread ends.
    private var released = false
    private var finished = false
    private var events: [ProviderEvent] = []
    private var now = Timestamp(nanoseconds: 0)

    init(
        options: Provider.Options, inbox: CommandInbox<ProviderCommand>, hub: ListenerHub<ProviderEvent>,
        queue: DispatchQueue
    ) {
        self.options = options
        self.inbox = inbox
        self.connector = ProviderConnector(options: options, inbox: inbox)
        self.clock = options.clock
        self.hub = hub
        self.queue = queue
        self.authorization = ProviderAuthorization(options)
        var configuration = HTTP2Session.Configuration()
        // Apple's answers are small; a larger body is a broken or hostile peer.
        configuration.maxBodySize = ProviderAnswer.bodyLimit
        configuration.maxConcurrentStreams = 100  // server-initiated streams: none expected
        self.sessionConfiguration = configuration
        self.scheduler = ProviderScheduler(
            configuration: ProviderScheduler.Configuration(
                requestTimeout: options.requestTimeout, retryLimit: max(0, options.retryLimit),
                initialBackoff: options.initialBackoff, maxBackoff: options.maxBackoff))
    }

    // MARK: The loop

    mutating func run() {
        let observer = clock.manual?.observe { [inbox] in inbox.post(.clockAdvanced) }
        defer { if let observer { clock.manual?.removeObserver(observer) } }
        var commands: [ProviderCommand] = []
        while !finished {
            inbox.take(swapping: &commands)
            now = clock.now()
            for index in commands.indices { handle(commands[index]) }
            readSockets()
            fireTimers()
            dropStalledWriters()
            closeEndedSockets()
            assignWork()
            // After the work is handed out: what is left ready, with every connection full,
            // is what another connection would take.
            maintainConnections()
            for socket in sockets { socket.flush(now: now) }
            closeEndedSockets()
            finishCloseIfDone()
            dispatchEvents()
            if finished { break }
            let sleeps = inbox.prepareToSleep()
            waitForActivity(timeout: sleeps ? pollTimeout() : 0)
            if sleeps { inbox.awake() }
        }
        connector.stop()
    }

    private mutating func handle(_ command: ProviderCommand) {
        switch command {
        case .send(let submissions, let cancellation):
            if submissions.count > 1 && !closing { scheduler.reserve(submissions.count) }
            var ids: Range<Int>?
            for submission in submissions {
                if closing || cancellation?.isCancelled == true {
                    submission.completion(
                        ProviderResponse(
                            device: submission.request.device,
                            error: closing
                                ? ProviderError(code: .shutDown, message: "the provider is closed")
                                : ProviderError(code: .cancelled, message: "the task awaiting it was cancelled"),
                            status: nil, apnsID: nil, uniqueID: nil, attempts: 0))
                    continue
                }
                let id = scheduler.enqueue(
                    submission.request, now: now, cancellation: cancellation, completion: submission.completion)
                ids = (ids?.lowerBound ?? id)..<id + 1
            }
            // One send's requests get consecutive ids: cancelling it withdraws that range.
            if let cancellation, let ids { cancellation.note(ids) }
        case .cancel(let cancellation):
            for completion in scheduler.cancel(cancellation) { complete(completion) }
        case .connectResult(_, let result):
            connected(result)
        case .close(let reply):
            closing = true
            if closed { dispatch(reply) } else { closeReplies.append(reply) }
        case .release:
            closing = true
            released = true
        case .barrier(let reply):
            dispatch(reply)
        case .clockAdvanced:
            break
        }
    }

    // MARK: Reading and answers

    private mutating func readSockets() {
        for socket in sockets where readable.contains(socket.number) || socket.connection.hasDecryptedData {
            for event in socket.readAvailable(now: now) { handle(event, on: socket) }
        }
        readable.removeAll(keepingCapacity: true)
    }

    private mutating func handle(_ received: HTTP2Event, on socket: ProviderSocket) {
        switch received {
        case .response(let streamID, let headers, let body):
            guard let open = takeStream(streamID, on: socket) else { return }
            socket.answered += 1
            failedAttempts = 0
            answered(open, headers: headers, body: body)
        case .streamClosed(let streamID, let code):
            guard let open = takeStream(streamID, on: socket) else { return }
            if code == .refusedStream {
                complete(scheduler.refused(open.id))
            } else {
                complete(
                    scheduler.failInFlight(
                        open.id,
                        ProviderError(
                            code: .connectionFailed,
                            message: "the server reset the stream (\(code)) before answering; it may have been delivered")))
            }
        case .streamRejected(let streamID, let reason):
            guard let open = takeStream(streamID, on: socket) else { return }
            complete(scheduler.failInFlight(open.id, ProviderError(code: .protocolError, message: "\(reason)")))
        case .goaway(_, let code, let debugData):
            if !socket.draining && socket.answered == 0 { backOff() }
            socket.draining = true
            event(.goaway(socket.peer, errorCode: code.rawValue, debugData: String(decoding: debugData, as: UTF8.self)))
        case .pingAcknowledged:
            if socket.pingSentAt != nil { event(.pingAnswered(socket.peer)) }
            socket.pingSentAt = nil
        case .remoteSettingsChanged:
            socket.settingsReceived = true
        case .request:
            break
        }
    }

    private mutating func answered(_ open: ProviderSocket.OpenStream, headers: [HTTP2Header], body: [UInt8]) {
        let answer: ProviderAnswer
        do throws(ProviderError) {
            answer = try ProviderAnswer(headers: headers, body: body)
        } catch {
            complete(scheduler.failInFlight(open.id, error))
            return
        }
        var canRetry = false
        if answer.disposition == .renewTokenAndRetry {
            // Sent with a token already replaced: the current one may do. Otherwise renew,
            // when Apple allows an update now.
            if open.tokenIssuedAt != authorization.issuedAt {
                canRetry = true
            } else if authorization.renewAfterExpiry() {
                canRetry = true
                if let issuedAt = authorization.issuedAt { event(.tokenRenewed(issuedAt: issuedAt)) }
            }
        }
        complete(scheduler.answered(open.id, answer, now: now, canRenewToken: canRetry))
    }

    private mutating func takeStream(_ streamID: Int32, on socket: ProviderSocket) -> ProviderSocket.OpenStream? {
        socket.streams.removeValue(forKey: streamID)
    }

    // MARK: Timers

    private mutating func fireTimers() {
        for completion in scheduler.tick(now: now) { complete(completion) }
        guard let interval = options.pingInterval else { return }
        for socket in sockets where socket.failure == nil {
            if let sent = socket.pingSentAt {
                if now - sent >= options.pingTimeout {
                    socket.failure = .lost("no answer to PING within \(options.pingTimeout)")
                }
            } else if now - socket.lastActivity >= silenceBeforePing(socket, interval: interval) {
                socket.session.submitPing()
                socket.pingSentAt = now
            }
        }
    }

    /// A server that stopped reading (our bytes waiting, none written for `pingTimeout`)
    /// is given up: what it took is failed as maybe delivered, the rest goes elsewhere.
    private mutating func dropStalledWriters() {
        for socket in sockets where socket.failure == nil && socket.hasRefusedBytes {
            if now - socket.lastWriteProgress >= options.pingTimeout {
                socket.failure = .lost("the server read nothing for \(options.pingTimeout)")
            }
        }
    }

    /// Milliseconds until the next deadline (rounded up), 0 when one is due or a socket has
    /// decrypted bytes waiting, -1 for none. With a manual clock, time moves only by
    /// `advance`, which posts to the inbox: only an already due deadline needs a timeout.
    /// How long `socket` may receive nothing before it is PINGed: `pingInterval` when it
    /// is idle; at most `pingTimeout` while requests wait for answers, so that a hung
    /// server is found in twice `pingTimeout`, not only as `requestTimeout` ends each
    /// request, and the requests waiting for a stream move to another connection.
    private func silenceBeforePing(_ socket: ProviderSocket, interval: Duration) -> Duration {
        socket.streams.isEmpty ? interval : min(interval, options.pingTimeout)
    }

    private mutating func pollTimeout() -> Int32 {
        if sockets.contains(where: { $0.connection.hasDecryptedData }) { return 0 }
        var earliest = scheduler.nextDeadline()
        func consider(_ time: Timestamp?) {
            guard let time else { return }
            earliest = min(earliest ?? time, time)
        }
        if wantsConnection {
            // Nothing holds the next connection back (a socket just ended after the last
            // `maintainConnections()`): go round again at once rather than sleep until
            // some unrelated deadline.
            guard let nextAttemptAt else { return 0 }
            consider(nextAttemptAt)
        }
        if let interval = options.pingInterval {
            for socket in sockets {
                consider(
                    socket.pingSentAt.map { $0 + options.pingTimeout }
                        ?? socket.lastActivity + silenceBeforePing(socket, interval: interval))
            }
        }
        for socket in sockets where socket.failure == nil && socket.hasRefusedBytes {
            consider(socket.lastWriteProgress + options.pingTimeout)
        }
        guard let earliest else { return -1 }
        let nanoseconds = earliest.nanoseconds &- clock.now().nanoseconds
        if nanoseconds <= 0 { return 0 }
        if clock.manual != nil { return -1 }
        return Int32(clamping: (nanoseconds + 999_999) / 1_000_000)
    }

    private mutating func waitForActivity(timeout: Int32) {
        var descriptors = [pollfd(fd: inbox.wake.descriptor, events: Int16(POLLIN), revents: 0)]
        for socket in sockets {
            var events = Int16(POLLIN)
            if socket.hasPendingOutput { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: socket.connection.fileDescriptor, events: events, revents: 0))
        }
        let result = descriptors.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
        }
        guard result > 0 else { return }
        for (offset, socket) in sockets.enumerated()
        where descriptors[offset + 1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            readable.insert(socket.number)
        }
    }

    // MARK: Connections

    private mutating func connected(_ result: ProviderConnectResult) {
        connecting = false
        switch result {
        case .connected(let handoff) where closed:
            // Closed while it was being opened: nothing is left to send on it.
            handoff.take().close()
        case .connected(let handoff):
            let connection = handoff.take()
            do throws(HTTP2Error) {
                let session = try HTTP2Session(role: .client, configuration: sessionConfiguration)
                nextSocketNumber += 1
                let socket = ProviderSocket(
                    number: nextSocketNumber, connection: connection, session: session,
                    peer: connection.peerDescription, now: now)
                sockets.append(socket)
                // The failure count is cleared by the first answer, not by the handshake: a
                // server that takes connections and answers nothing is backed off from.
                nextAttemptAt = nil
                event(.connected(socket.peer))
            } catch {
                connection.close()
                connectFailed(ProviderError(code: .protocolError, message: "starting HTTP/2: \(error)"))
            }
        case .failed(let error):
            connectFailed(error)
        }
    }

    /// Counts a connection that answered nothing as a failed attempt and waits before the
    /// next.
    private mutating func backOff() {
        failedAttempts += 1
        nextAttemptAt = now + scheduler.backoff(afterRetry: failedAttempts)
    }

    private mutating func connectFailed(_ error: ProviderError) {
        failedAttempts += 1
        event(.connectionFailed(error))
        let hopeless = error.code == .authentication || failedAttempts >= max(1, options.connectionRetryLimit)
        let givesUp = hopeless && !sockets.contains(where: \.isUsable)
        if givesUp {
            for completion in scheduler.failWaiting(error) { complete(completion) }
            failedAttempts = 0
        }
        let delay = scheduler.backoff(afterRetry: max(1, failedAttempts))
        event(.connectAttemptFailed(error, nextAttemptIn: givesUp ? nil : delay))
        nextAttemptAt = now + delay
    }

    /// Whether another connection would take ready requests: none is being opened, every
    /// usable one is full, fewer than `maxConnections` are usable, and draining ones
    /// (GOAWAY, waiting for their last answers) do not pile up past twice that.
    private var wantsConnection: Bool {
        guard !connecting, !closed, scheduler.readyCount > 0 else { return false }
        let limit = max(1, options.maxConnections)
        guard sockets.count < 2 * limit else { return false }
        var usable = 0
        for socket in sockets where socket.isUsable {
            if socket.capacity(limit: options.maxConcurrentStreams) > 0 { return false }
            usable += 1
        }
        return usable < limit
    }

    /// Opens a connection when ``wantsConnection`` and no backoff holds it back.
    private mutating func maintainConnections() {
        guard wantsConnection else { return }
        if let nextAttemptAt, nextAttemptAt > now { return }
        connecting = true
        attempts += 1
        connector.start(attempt: attempts)
    }

    private mutating func closeEndedSockets() {
        guard sockets.contains(where: { $0.failure != nil || $0.ended || ($0.draining && $0.streams.isEmpty) })
            || sockets.contains(where: { !$0.session.wantsRead && !$0.session.wantsWrite })
        else { return }
        var kept: [ProviderSocket] = []
        for socket in sockets {
            let done = socket.failure != nil || socket.ended || (socket.draining && socket.streams.isEmpty)
                || (!socket.session.wantsRead && !socket.session.wantsWrite)
            guard done else {
                kept.append(socket)
                continue
            }
            let reason = socket.failure
                ?? .lost("the connection ended before Apple answered; the notification may have been delivered, so it is not sent again")
            let open = socket.streams.values.map(\.id).sorted()
            socket.streams.removeAll()
            for id in open { complete(scheduler.failInFlight(id, reason)) }
            socket.close(now: now)
            event(.disconnected(socket.peer, socket.failure))
            if socket.answered == 0 && !socket.draining {
                // Nothing answered (dropped at once): back off as from a failed attempt
                // rather than reconnect in a loop. (A GOAWAY already did.)
                backOff()
            }
        }
        sockets = kept
    }

    // MARK: Sending

    private mutating func assignWork() {
        guard scheduler.readyCount > 0 else { return }
        let token: (value: String?, renewed: Bool)
        do throws(ProviderError) {
            token = try authorization.current()
        } catch {
            for completion in scheduler.failWaiting(error) { complete(completion) }
            return
        }
        if token.renewed, let issuedAt = authorization.issuedAt { event(.tokenRenewed(issuedAt: issuedAt)) }
        let authorizationHeader = token.value.map { HTTP2Header("authorization", $0) }
        for socket in sockets where socket.isUsable {
            var room = socket.capacity(limit: options.maxConcurrentStreams)
            while room > 0, let (id, request) = scheduler.take() {
                headerScratch.removeAll(keepingCapacity: true)
                request.appendHeaders(to: &headerScratch)
                if let authorizationHeader { headerScratch.append(authorizationHeader) }
                do throws(HTTP2Error) {
                    let streamID = try socket.session.submitRequest(headers: headerScratch, body: request.body)
                    socket.streams[streamID] = ProviderSocket.OpenStream(id: id, tokenIssuedAt: authorization.issuedAt)
                    scheduler.sent(id, socket: socket.number, stream: streamID)
                    room -= 1
                } catch where error.kind == .sessionClosing || error.kind == .streamIDsExhausted {
                    // No more streams on this connection: the request goes back to the front.
                    socket.draining = true
                    complete(scheduler.refused(id))
                    break
                } catch {
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

    /// Resets the stream a request completed early (timed out, cancelled) was in flight on.
    private mutating func resetStream(_ location: (socket: Int, stream: Int32)) {
        guard let socket = sockets.first(where: { $0.number == location.socket }),
            socket.streams.removeValue(forKey: location.stream) != nil
        else { return }
        socket.session.resetStream(location.stream, errorCode: .cancel)
    }

    // MARK: Reports

    private mutating func complete(_ completion: ProviderScheduler.Completion?) {
        guard let completion else { return }
        if let stream = completion.stream { resetStream(stream) }
        if !completion.response.isSuccess && hub.hasListeners { events.append(.failed(completion.response)) }
        completion()
    }

    private mutating func event(_ event: ProviderEvent) {
        if hub.hasListeners { events.append(event) }
    }

    private mutating func dispatchEvents() {
        guard !events.isEmpty else { return }
        let batch = events
        events.removeAll()
        queue.async { [hub] in
            let listeners = hub.snapshot()
            for event in batch {
                for listener in listeners { listener(event) }
            }
        }
    }

    /// Once closing and every request is answered: GOAWAY and close each connection, end
    /// the event streams, answer `close()`. The thread itself stays (answering later sends
    /// with `shutDown`) until the provider is released.
    private mutating func finishCloseIfDone() {
        guard closing, !closed, scheduler.count == 0 else {
            if closed && released { finished = true }
            return
        }
        for socket in sockets {
            socket.session.terminate(errorCode: .noError)
            socket.close(now: now)
            event(.disconnected(socket.peer, nil))
        }
        sockets.removeAll()
        closed = true
        let replies = closeReplies
        closeReplies.removeAll()
        dispatchEvents()
        queue.async { [hub] in
            hub.finish()
            for reply in replies { reply() }
        }
        if released { finished = true }
    }

    private func dispatch(_ reply: @escaping @Sendable () -> Void) {
        queue.async(execute: reply)
    }
}
