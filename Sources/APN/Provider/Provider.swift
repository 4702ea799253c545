import APNSupport
import APNTLS
import Dispatch
import Glibc
import Foundation
import Synchronization

/// A client of Apple's HTTP/2 provider API (`api.push.apple.com`), beside the binary
/// ``Connection``, sending the same ``Notification``s.
///
/// ```swift
/// var options = Provider.Options()
/// options.authentication = .token(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", key: "AuthKey_ABC123DEFG.p8")
/// options.topic = "com.example.app"
/// let provider = Provider(options: options)
/// let note = PushNotification().setAlertText("Hello")
/// do {
///     let response = try await provider.send(note, to: device)
///     print(response.apnsID ?? "")
/// } catch {
///     print(error.reason ?? error.code)   // e.g. BadDeviceToken
/// }
/// let responses = await provider.send(note, to: devices)   // one per device, in order
/// await provider.shutdown()
/// ```
///
/// Concurrency: one I/O thread per provider owns its connections (each an HTTP/2 session
/// over TLS with ALPN `h2`), its request table and its provider token; `send` and
/// `shutdown` may be called from any thread or task. Requests go out on up to
/// ``Options/maxConnections`` connections, each carrying as many streams at once as the
/// server allows (and ``Options/maxConcurrentStreams``). 429 and 5xx answers are
/// retried with a backoff, streams the server did not process (REFUSED_STREAM, GOAWAY) at
/// once (on a new connection after a GOAWAY), `ExpiredProviderToken` once with a renewed token; every
/// other refusal reaches the caller typed. Every notification handed to ``send(_:to:)-(_,Device)``
/// ends in exactly one ``ProviderResponse``.
public final class Provider: Sendable {
    /// The options the provider was created with.
    public let options: Options
    let inbox = CommandInbox<ProviderCommand>()
    let hub = ListenerHub<ProviderEvent>()
    private let callbackQueue: DispatchQueue
    let requiresTopic: Bool
    /// The templates ``forward(_:completion:)`` used last, most recent first.
    let forwardTemplates = Lock<[ProviderRequest.Template]>([])

    /// The operating system's name for a provider's I/O thread (at most 15 characters).
    package static let threadName = "apn-provider-io"

    /// Creates a provider; nothing connects until the first notification is sent.
    public init(options: Options = Options()) {
        self.options = options
        self.requiresTopic = options.authentication.requiresTopic
        let queue = DispatchQueue(label: "swift-apn.provider.callbacks", target: options.callbackQueue)
        self.callbackQueue = queue
        // The loop is created on its own thread and never leaves it; only Sendable parts
        // cross over.
        ClientThread.start(Self.threadName, threads: options.threadStarter, log: options.log) { [inbox, hub] in
            var loop = ProviderLoop(options: options, inbox: inbox, hub: hub, queue: queue)
            loop.run()
        }
    }

    /// Finishes what was sent, closes the connections and ends the I/O thread.
    deinit {
        inbox.post(.release)
    }

    // MARK: Sending

    /// Sends `notification` to `device` and returns Apple's answer.
    ///
    /// - Throws: ``ProviderError``: Apple's refusal (``ProviderError/reason``, the 410
    ///   ``ProviderError/timestamp``), a notification that cannot be sent as it is
    ///   (``ProviderError/Code/invalidNotification``), a timeout, a connection failure,
    ///   or ``ProviderError/Code/cancelled`` when the awaiting task is cancelled (a request
    ///   already written is not recalled).
    @discardableResult
    public func send(_ notification: Notification, to device: Device) async throws(ProviderError) -> ProviderResponse {
        let response = await sendAll(notification, to: [device])[0]
        if let error = response.error { throw error }
        return response
    }

    /// Sends `notification` to every device (apns2's `sendMany`) and returns one response
    /// per device, in the order given; it never throws: each response says what became of
    /// its notification.
    public func send(_ notification: Notification, to devices: [Device]) async -> [ProviderResponse] {
        await sendAll(notification, to: devices[...])
    }

    /// Sends `notification` to every device of a slice (a chunk of a longer list, taken
    /// without copying it) and returns one response per device, in the slice's order: the
    /// response of `devices[i]` is at `i - devices.startIndex`. It never throws.
    public func send(_ notification: Notification, to devices: ArraySlice<Device>) async -> [ProviderResponse] {
        await sendAll(notification, to: devices)
    }

    /// Sends `notification` to every device of `devices` and hands each response to
    /// `each` as it comes, with the device's offset in `devices` (in the order the answers
    /// come, not the order given); returns once every device has had its response. No
    /// response is gathered or kept: for large sends, and senders that only count or log
    /// them. Cancelling the awaiting task withdraws what is not answered yet, each then
    /// answered ``ProviderError/Code/cancelled``.
    ///
    /// `each` is called **on the provider's I/O thread** (at once on the caller's for a
    /// notification that cannot be sent as it is), once per device: it must be quick and
    /// must not block, and the response is lent to it (copy what you keep).
    public func send(
        _ notification: Notification, to devices: ArraySlice<Device>,
        each: @escaping @Sendable (Int, ProviderResponse) -> Void
    ) async {
        guard !devices.isEmpty else { return }
        let countdown = ResponseCountdown(count: devices.count)
        let cancellation = ProviderCancellation()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                countdown.setContinuation(continuation)
                submit(notification, to: devices, cancellation: cancellation) { index, response in
                    each(index, response)
                    countdown.delivered()
                }
            }
        } onCancel: {
            cancellation.cancel()
            inbox.post(.cancel(cancellation))
        }
    }

    /// ``send(_:to:each:)-(_,ArraySlice<Device>,_)`` for a whole array.
    public func send(
        _ notification: Notification, to devices: [Device], each: @escaping @Sendable (Int, ProviderResponse) -> Void
    ) async {
        await send(notification, to: devices[...], each: each)
    }

    /// Sends `notification` to `device`; `completion` is called once with the response,
    /// on the callback queue.
    public func send(
        _ notification: Notification, to device: Device, completion: @escaping @Sendable (ProviderResponse) -> Void
    ) {
        let queue = callbackQueue
        submit(notification, to: [device]) { _, response in queue.async { completion(response) } }
    }

    private func sendAll(_ notification: Notification, to devices: ArraySlice<Device>) async -> [ProviderResponse] {
        guard !devices.isEmpty else { return [] }
        let gathering = ResponseGathering(count: devices.count)
        let cancellation = ProviderCancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                gathering.setContinuation(continuation)
                submit(notification, to: devices, cancellation: cancellation) { index, response in
                    gathering.deliver(response, at: index)
                }
            }
        } onCancel: {
            // Before the requests reach the I/O thread, the flag withdraws them there; after,
            // the command does.
            cancellation.cancel()
            inbox.post(.cancel(cancellation))
        }
    }

    /// Builds the notification's template (a notification that cannot be sent is answered
    /// at once, for every device) and hands the devices to the I/O thread in runs, which
    /// makes each device's request as it queues it. `completion` gets each response with
    /// its device's offset in `devices`.
    private func submit(
        _ notification: Notification, to devices: ArraySlice<Device>, cancellation: ProviderCancellation? = nil,
        completion: @escaping ProviderReply.Sink
    ) {
        let template: ProviderRequest.Template
        do throws(ProviderError) {
            template = try ProviderRequest.Template(
                notification, authority: options.host, defaultTopic: options.topic, requiresTopic: requiresTopic)
        } catch {
            for (offset, device) in devices.enumerated() {
                completion(
                    offset,
                    ProviderResponse(device: device, error: error, status: nil, apnsID: nil, uniqueID: nil, attempts: 0))
            }
            return
        }
        // Each 410 is handed to the recording before its caller hears of it, so a shutdown
        // after the answers waits for it too.
        let recording = options.unregisteredTokens
        let now = options.currentDate
        let sink: ProviderReply.Sink
        if let recording {
            sink = { index, response in
                recording.take(response, now: now)
                completion(index, response)
            }
        } else {
            sink = completion
        }
        // Handed over in runs, so the I/O thread starts sending while the rest are posted.
        let target = ProviderReplyTarget(cancellation: cancellation, sink: sink)
        for start in stride(from: devices.startIndex, to: devices.endIndex, by: Self.submissionBatch) {
            let run = ProviderDeviceRun(
                template: template, devices: devices[start..<min(start + Self.submissionBatch, devices.endIndex)],
                indexBase: devices.startIndex, target: target)
            inbox.post(.sendToDevices(run))
        }
    }

    /// How many requests of one `send(_:to:)` go to the I/O thread in one command.
    static let submissionBatch = 1_024

    // MARK: Events

    /// Calls `listener` with every event from now on, on the callback queue, until
    /// ``removeListener(_:)``.
    @discardableResult
    public func on(_ listener: @escaping @Sendable (ProviderEvent) -> Void) -> ListenerID {
        ListenerID(value: hub.add(listener) ?? 0)
    }

    /// Calls `listener` with every response Apple refuses for `reason` (apns2's
    /// `client.on(Errors.badDeviceToken, …)`).
    @discardableResult
    public func on(_ reason: ProviderReason, _ listener: @escaping @Sendable (ProviderResponse) -> Void) -> ListenerID {
        on { event in
            if case .failed(let response) = event, response.reason == reason { listener(response) }
        }
    }

    /// Stops calling a listener.
    public func removeListener(_ id: ListenerID) {
        hub.remove(id.value)
    }

    /// The events from now on, as an asynchronous sequence that ends when the provider is
    /// shut down. Each access makes a new stream; events are buffered without bound.
    public var events: AsyncStream<ProviderEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ProviderEvent.self)
        if let id = hub.add({ continuation.yield($0) }, onFinish: { continuation.finish() }) {
            continuation.onTermination = { [hub] _ in hub.remove(id) }
        }
        return stream
    }

    /// Identifies a listener added with ``on(_:)-(_)``.
    public struct ListenerID: Hashable, Sendable {
        let value: Int
    }

    /// Returns once the I/O thread has taken in everything sent before the call (for
    /// tests and benchmarks: a point after which its table holds them).
    package func barrier() async {
        await withCheckedContinuation { continuation in
            inbox.post(.barrier(reply: { continuation.resume() }))
        }
    }

    // MARK: Shutting down

    /// Stops taking notifications (later ones fail with ``ProviderError/Code/shutDown``),
    /// waits for every answer still due (each bounded by ``Options/requestTimeout``),
    /// then closes the connections with GOAWAY. Event streams end. With
    /// ``Options/unregisteredTokens``, returns once every 410 is recorded or kept as not
    /// recorded.
    public func shutdown() async {
        await withCheckedContinuation { continuation in
            shutdown { continuation.resume() }
        }
    }

    /// ``shutdown()`` for a caller on a thread of its own (the bridge's stop): `completion`
    /// is called on the I/O thread once the provider is shut down (on the recording's queue,
    /// after its last 410, with ``Options/unregisteredTokens``).
    @_spi(APNBridge) public func shutdown(completion: @escaping @Sendable () -> Void) {
        guard let recording = options.unregisteredTokens else { return inbox.post(.shutdown(reply: completion)) }
        inbox.post(.shutdown(reply: { recording.flush { _ in completion() } }))
    }

    /// Credentials read and checked by ``loadCredentials(_:)``, for ``useCredentials(_:)``.
    @_spi(APNBridge) public struct LoadedCredentials: Sendable {
        fileprivate let options: Options
        fileprivate let context: TLSClientContext
    }

    /// Reads the credentials `options` name again — the `.p8` key, or the certificate and
    /// key, and the trusted CAs — for ``useCredentials(_:)``; nothing changes yet, so a
    /// caller reloading several providers can check them all first. Only the credentials
    /// of `options` are taken (``Options/authentication``, `cert`, `key`, `pfx`,
    /// `passphrase`, `ca`); the rest stays as created.
    ///
    /// - Throws: ``ProviderError/Code/authentication`` naming the file that did not load.
    @_spi(APNBridge) public func loadCredentials(_ options: Options) throws(ProviderError) -> LoadedCredentials {
        try Self.loadCredentials(options, onto: self.options)
    }

    /// ``loadCredentials(_:)`` for a provider with options `base`, before it exists: a
    /// check that `options`' credentials load.
    @_spi(APNBridge) public static func loadCredentials(_ options: Options, onto base: Options) throws(ProviderError) -> LoadedCredentials {
        var updated = base
        updated.authentication = options.authentication
        updated.cert = options.cert
        updated.key = options.key
        updated.pfx = options.pfx
        updated.passphrase = options.passphrase
        updated.ca = options.ca
        if case .token(let keyID, let teamID, let source) = options.authentication {
            // Read now and kept as bytes: a failure is told here, not at the next request,
            // and the key file replaced again later does not change what was loaded.
            updated.authentication = .token(keyID: keyID, teamID: teamID, key: .data(try ProviderAuthorization.readKey(source).bytes))
        }
        do throws(APNError) {
            let protocols = ClientConnector.Settings(updated).requiredProtocol.map { [$0] } ?? []
            return LoadedCredentials(
                options: updated,
                context: try ClientContextLoader.load(updated.clientAccess, applicationProtocols: protocols))
        } catch {
            throw ProviderError(code: .authentication, message: error.message)
        }
    }

    /// Uses `credentials` from now on (the bridge's SIGHUP): requests written later carry
    /// a token signed with the new key, connections opened later present the new
    /// certificate. Requests in flight and connections open carry on.
    @_spi(APNBridge) public func useCredentials(_ credentials: LoadedCredentials) {
        inbox.post(.reloadCredentials(credentials.options, credentials.context))
    }

    /// Connects once to the upstream as a request would — TCP, TLS with the credentials in
    /// use (the push certificate, for certificate authentication, is presented and must be
    /// taken), ALPN `h2` — then closes, sending nothing: whether the upstream is reachable
    /// (the bridge's readiness). `reply` gets nil or the failure, on the attempt's thread;
    /// never called once the provider has finished.
    @_spi(APNBridge) public func probe(_ reply: @escaping @Sendable (ProviderError?) -> Void) {
        inbox.post(.probe(reply: reply))
    }

    /// Shuts down without waiting for answers (the bridge's stop once its grace is over):
    /// every notification not yet answered completes at once with
    /// ``ProviderError/Code/shutDown`` — never sent if it was not written
    /// (``ProviderError/mayHaveBeenDelivered`` false), may have been delivered if it was —
    /// and nothing more is written upstream. `completion` comes as for ``shutdown(completion:)``.
    @_spi(APNBridge) public func withdraw(completion: @escaping @Sendable () -> Void) {
        guard let recording = options.unregisteredTokens else { return inbox.post(.withdraw(reply: completion)) }
        inbox.post(.withdraw(reply: { recording.flush { _ in completion() } }))
    }
}

/// Counts the responses of one ``Provider/send(_:to:each:)-(_,ArraySlice<Device>,_)``
/// down and resumes its caller after the last: an atomic decrement a response, the lock
/// only for the continuation.
private final class ResponseCountdown: Sendable {
    private let remaining: Atomic<Int>
    private let continuation = Lock<CheckedContinuation<Void, Never>?>(nil)

    init(count: Int) {
        remaining = Atomic(count)
    }

    /// Set before any response can come (before the requests are handed over).
    func setContinuation(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    /// One response was handed to the caller's closure.
    func delivered() {
        guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        continuation.withLock { $0.take() }?.resume()
    }
}

/// Collects the responses of one `send(_:to: [Device])` and resumes its caller once all
/// have come. Responses arrive on the I/O thread (or at once, for refused notifications).
private final class ResponseGathering: Sendable {
    /// The responses so far, each written in place at its request's index (no optional per
    /// slot, no copy at the end: the finished buffer is moved into the array returned).
    private struct State: ~Copyable {
        let responses: UnsafeMutablePointer<ProviderResponse>
        var delivered: [Bool]
        var remaining: Int
        var continuation: CheckedContinuation<[ProviderResponse], Never>?

        init(count: Int) {
            responses = .allocate(capacity: count)
            delivered = Array(repeating: false, count: count)
            remaining = count
        }

        deinit {
            // Responses not moved out (a send whose continuation never came): destroyed here.
            if remaining > 0 {
                for index in delivered.indices where delivered[index] { (responses + index).deinitialize(count: 1) }
            }
            responses.deallocate()
        }
    }

    private let state: Lock<State>

    init(count: Int) {
        state = Lock(State(count: count))
    }

    func setContinuation(_ continuation: CheckedContinuation<[ProviderResponse], Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func deliver(_ response: ProviderResponse, at index: Int) {
        state.withLock { state in
            guard !state.delivered[index] else {
                assertionFailure("a second response for notification \(index)")
                return
            }
            (state.responses + index).initialize(to: response)
            state.delivered[index] = true
            state.remaining -= 1
            guard state.remaining == 0, let continuation = state.continuation.take() else { return }
            let count = state.delivered.count
            let responses = state.responses
            let all = [ProviderResponse](unsafeUninitializedCapacity: count) { buffer, initialized in
                buffer.baseAddress!.moveInitialize(from: responses, count: count)
                initialized = count
            }
            // Under the lock, and safe there: resuming only schedules the awaiting task.
            // (Handing the continuation out of the lock cost an optional's generic destroy
            // on every one of the other responses.)
            continuation.resume(returning: all)
        }
    }
}
