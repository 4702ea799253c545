import Dispatch
import Foundation
import Synchronization

/// A connection to Apple's binary push gateway, in node-apn 1.x's shape: push
/// notifications to devices, hear about failures through an `errorCallback` and events,
/// and — beyond node-apn — learn each notification's final outcome.
///
/// ```swift
/// var options = Connection.Options()
/// options.cert = "cert.pem"
/// options.key = "key.pem"
/// let connection = Connection(options: options)
/// let note = Notification().setAlertText("Hello").setBadge(1)
/// connection.push(note, to: try Device("a1b2…"))
/// let report = await connection.shutdown()   // waits for the outcomes
/// ```
///
/// Nothing connects until the first push (lazy connect). Pushing never blocks: a
/// notification is validated, queued and written by the connection's I/O thread, in the
/// order pushed. Sockets are opened on demand up to ``Options/maxConnections``, each with
/// its own identifiers and resend cache.
///
/// Every notification pushed ends in exactly one ``NotificationOutcome``: accepted,
/// rejected, failed, or unknown fate. Callbacks, listeners and outcome handlers run on the
/// callback queue (``Options/callbackQueue``), one at a time, never on the I/O thread.
///
/// Thread-safe: push, flush and shut down from any thread.
public final class Connection: Sendable {
    /// The options the connection was created with.
    public let options: Options
    let inbox = Inbox()
    let hub = EventHub()
    private let payloadLimit: Int
    /// Numbers each flush, shutdown and barrier, so that a cancelled wait can name its own.
    private let replyCounter = Atomic<Int>(0)

    /// Creates a connection; nothing connects until the first push.
    public init(options: Options = Options()) {
        self.options = options
        self.payloadLimit = options.payloadLimit
        let queue = DispatchQueue(label: "swift-apn.connection.callbacks", target: options.callbackQueue)
        // The loop is created on its own thread and never leaves it (ConnectionLoop's
        // concurrency model); only Sendable parts cross over.
        ClientThread.start("apn-connection", threads: options.threadStarter, log: options.log) { [inbox, hub] in
            var loop = ConnectionLoop(options: options, inbox: inbox, hub: hub, queue: queue)
            loop.run()
        }
    }

    /// Shuts down without waiting, if not shut down yet: what is queued is still sent,
    /// then the sockets close and the I/O thread ends.
    deinit {
        inbox.post(.release)
    }

    // MARK: Pushing

    /// Sends `notification` to `device`; `outcome` (if given) is called with its outcome on
    /// the callback queue.
    public func push(
        _ notification: Notification, to device: Device, outcome: (@Sendable (NotificationOutcome) -> Void)? = nil
    ) {
        inbox.post(command(notification, device: device, delivery: notification.delivery(), completion: outcome))
    }

    /// Sends `notification` to each of `devices`, in order. The payload is compiled once.
    public func push(_ notification: Notification, to devices: [Device]) {
        push(notification, to: devices, completion: nil)
    }

    /// Sends `notification` to each of `devices`, in order, and calls `outcomes` with each
    /// one's index in `devices` and its outcome, on the callback queue, as they are known.
    /// The payload is compiled once.
    public func push(
        _ notification: Notification, to devices: [Device],
        outcomes: @escaping @Sendable (_ index: Int, _ outcome: NotificationOutcome) -> Void
    ) {
        push(notification, to: devices, completion: outcomes)
    }

    private func push(_ notification: Notification, to devices: [Device], completion: PushRecord.Completion?) {
        guard !devices.isEmpty else { return }
        let delivery = notification.delivery()
        // One record and one command for all of them; the I/O thread takes them one by one.
        let record = PushRecord(notification: notification, devices: devices, delivery: delivery, completion: completion)
        // The check depends on the notification alone: all are refused or none.
        if let error = refusal(notification, delivery) {
            inbox.post(.refuse(record, error))
        } else {
            inbox.post(.push(record))
        }
    }

    /// Sends `notification` to each device token given in hex (spaces and `<>` ignored,
    /// as ``Device/init(_:validatesLength:)``). A token that is not a device token fails
    /// with status 8 through the errorCallback, `transmissionError` and its outcome.
    public func push(_ notification: Notification, toTokens tokens: [String]) {
        let delivery = notification.delivery()
        inbox.post(contentsOf: tokens.map { token in
            do throws(APNError) {
                return command(notification, device: try Device(token), delivery: delivery, completion: nil)
            } catch {
                let record = PushRecord(notification: notification, device: nil, delivery: delivery, completion: nil)
                return .refuse(record, error)
            }
        })
    }

    /// Sends `notification` to its ``Notification/device`` (node-apn's deprecated
    /// `sendNotification`); without one it fails with status 2.
    public func push(_ notification: Notification) {
        let delivery = notification.delivery()
        guard let device = notification.device else {
            let record = PushRecord(notification: notification, device: nil, delivery: delivery, completion: nil)
            inbox.post(.refuse(record, APNError.missingDevice()))
            return
        }
        inbox.post(command(notification, device: device, delivery: delivery, completion: nil))
    }

    /// Sends `notification` to `device` and waits for its outcome. When it is written with
    /// nothing queued behind it on its socket, a confirmation marker follows it: the
    /// gateway's answer to the marker accepts it (``Acceptance/Evidence-swift.enum/flush``)
    /// in one round trip, and the gateway then closes the connection, so the next
    /// notification opens a new one. Behind others, it is settled as they are: by a later
    /// error response, a marker, or the grace window (``Options/shutdownGraceWindow``).
    /// Command 0 has no identifiers to confirm with: there it is always the grace window.
    ///
    /// Cancelling the Task awaiting it returns ``UnknownFateReason/cancelled`` at once. The
    /// notification is not recalled: it is still sent, and its outcome still reaches the
    /// errorCallback, the events and the next ``DeliveryReport``.
    public func send(_ notification: Notification, to device: Device) async -> NotificationOutcome {
        let wait = CancellableWait<NotificationOutcome>()
        return await wait.wait(cancelled: { .unknownFate(.cancelled) }) {
            inbox.post(
                command(notification, device: device, delivery: notification.delivery(), isAwaited: true) {
                    wait.resume($0)
                })
        }
    }

    private func command(
        _ notification: Notification, device: Device, delivery: Notification.Delivery, isAwaited: Bool = false,
        completion: (@Sendable (NotificationOutcome) -> Void)?
    ) -> LoopCommand {
        let record = PushRecord(
            notification: notification, device: device, delivery: delivery, completion: completion, isAwaited: isAwaited)
        if let error = refusal(notification, delivery) { return .refuse(record, error) }
        return .push(record)
    }

    /// Why `notification` cannot be sent (what the format cannot carry, or a payload too
    /// large for it), or nil.
    private func refusal(_ notification: Notification, _ delivery: Notification.Delivery) -> APNError? {
        let command = options.format
        // Never sent without what the format cannot carry: priority 5 (power-conserving,
        // required for background pushes) sent as 10 would change what the device does.
        if delivery.priority != 10, command != .frame {
            return .unsupportedByFormat("priority \(delivery.priority)", format: "\(command)")
        }
        if delivery.expiry != 0, command == .simple {
            return .unsupportedByFormat("an expiry", format: "\(command)")
        }
        guard delivery.payload.count > payloadLimit else { return nil }
        do throws(APNError) {
            try notification.validate(for: options.format, voip: options.voip)
        } catch {
            return error
        }
        return nil
    }

    // MARK: Events

    /// Calls `listener` with every event from now on, on the callback queue, until
    /// ``removeListener(_:)``. Returns the listener's identity.
    @discardableResult
    public func on(_ listener: @escaping @Sendable (ConnectionEvent) -> Void) -> ListenerID {
        let id = hub.add(listener)
        inbox.post(.listenersChanged)
        return ListenerID(value: id ?? 0)
    }

    /// ``on(_:)``, optionally without ``ConnectionEvent/transmitted(_:_:)``: with
    /// `includingTransmitted` false the listener hears about sockets, connection attempts,
    /// `completed` and errors at no cost per notification (`transmitted` events are made
    /// only while a listener wants them).
    @discardableResult
    public func on(
        includingTransmitted: Bool, _ listener: @escaping @Sendable (ConnectionEvent) -> Void
    ) -> ListenerID {
        guard !includingTransmitted else { return on(listener) }
        let id = hub.add({ event in
            if case .transmitted = event { return }
            listener(event)
        }, sparing: true)
        inbox.post(.listenersChanged)
        return ListenerID(value: id ?? 0)
    }

    /// Stops calling a listener added with ``on(_:)``.
    public func removeListener(_ id: ListenerID) {
        hub.remove(id.value)
        inbox.post(.listenersChanged)
    }

    /// The events from now on, as an asynchronous sequence that ends when the connection
    /// has shut down. Each access makes a new stream; events are buffered without bound.
    public var events: AsyncStream<ConnectionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionEvent.self)
        let id = hub.add({ continuation.yield($0) }, onFinish: { continuation.finish() })
        if let id {
            continuation.onTermination = { [hub, inbox] _ in
                hub.remove(id)
                inbox.post(.listenersChanged)
            }
            inbox.post(.listenersChanged)
        }
        return stream
    }

    /// Identifies a listener added with ``on(_:)``.
    public struct ListenerID: Hashable, Sendable {
        let value: Int
    }

    // MARK: Flush and shutdown

    /// Waits for outcomes, then reports the outcomes since the previous report.
    ///
    /// - Parameter confirm: write a deliberately invalid marker frame after the queue on
    ///   every socket: the gateway's answer to it proves everything pushed before was
    ///   accepted (``DeliveryReport/confirmed``), without waiting for the grace window. A
    ///   marker the gateway does not answer (within the grace window, or before the
    ///   connection is lost) ends the flush unconfirmed; what it would have covered still
    ///   gets its outcome. Without it, waits until no notification at all is without an outcome — including
    ///   any pushed meanwhile, so under a steady stream of pushes it may not return; use a
    ///   confirmed flush there. Command 0 cannot be confirmed.
    ///
    /// Cancelling the Task awaiting it returns an empty, unconfirmed report at once. The
    /// flush goes on (its markers are written), and the outcomes its report would have
    /// held are in the next report. A report already made when the cancellation comes is
    /// returned instead: no outcome is in neither report.
    public func flush(confirm: Bool = true) async -> DeliveryReport {
        await awaitReport { id, reply in .flush(confirm: confirm, id: id, reply: reply) }
    }

    /// Stops taking notifications (later pushes fail with 515), sends what is queued, waits
    /// the grace window for a late error response, closes every socket, and reports the
    /// outcomes since the previous report. Event streams end. Calling it again reports
    /// the outcomes since (such as the 515 failures of pushes made after it).
    ///
    /// Cancelling the Task awaiting it returns an empty report at once. The shutdown goes
    /// on (later pushes still fail with 515), and the outcomes its report would have held
    /// are in the next report (call `shutdown()` again for it). A report already made when
    /// the cancellation comes is returned instead: no outcome is in neither report.
    @discardableResult
    public func shutdown() async -> DeliveryReport {
        await awaitReport { id, reply in .shutdown(id: id, reply: reply) }
    }

    /// Posts the command `make` builds and waits for its report, or, when the Task is
    /// cancelled, returns an empty one and tells the I/O thread to keep the report for the
    /// next caller. A report the I/O thread made before the cancellation was seen is either
    /// refused there (and added to the next report) or, once claimed, returned here.
    private func awaitReport(_ make: (ReplyID, ReportReply) -> LoopCommand) async -> DeliveryReport {
        let id = nextReplyID()
        let wait = CancellableWait<DeliveryReport>()
        // Posted before waiting, so that a cancellation's `cancelReply` always follows it.
        inbox.post(make(id, ReportReply(wait)))
        return await wait.wait(cancelled: { DeliveryReport() }, onCancel: { [inbox] in inbox.post(.cancelReply(id)) }) {}
    }

    private func nextReplyID() -> ReplyID {
        replyCounter.add(1, ordering: .relaxed).newValue
    }

    /// Returns once the I/O thread has taken in everything pushed before the call (for
    /// tests and benchmarks: a point after which the queue is known to hold them).
    package func barrier() async {
        await withCheckedContinuation { continuation in
            inbox.post(.barrier(reply: { continuation.resume() }))
        }
    }

    /// Returns once the gateway's TCP has acknowledged every byte written so far (at once
    /// when nothing waits for an acknowledgement). Acknowledgements arrive in real time: a
    /// test driving a ``ManualClock`` waits here before advancing past a grace window,
    /// since each notification's window starts when its acknowledgement is seen.
    package func acknowledgementBarrier() async {
        await withCheckedContinuation { continuation in
            inbox.post(.acknowledgementBarrier(id: nextReplyID(), reply: { continuation.resume() }))
        }
    }

    /// ``shutdown()`` with a completion handler, called on the callback queue.
    public func shutdown(completion: @escaping @Sendable (DeliveryReport) -> Void) {
        inbox.post(.shutdown(id: nextReplyID(), reply: ReportReply(completion)))
    }
}
