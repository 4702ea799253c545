import Dispatch

/// Collects what the I/O thread reports during one turn of its loop and hands it to the
/// callback queue as one block, so callbacks run in order, off the I/O thread, at a cost
/// of one dispatch per turn rather than one per report — or per ``sliceLimit`` reports, for
/// a turn that settles a million notifications at once (a final confirmation) would
/// otherwise build, and grow by doubling, one array of them all.
struct CallbackDispatcher {
    enum Delivery: Sendable {
        case event(ConnectionEvent)
        /// The record and which of its notifications; nil where node-apn passed null.
        case errorCallback(ErrorCallbackCode, PushRecord?, UInt32)
        case outcome(PushRecord, UInt32, NotificationOutcome)
        case reply(@Sendable (DeliveryReport) -> Void, DeliveryReport)
        case call(@Sendable () -> Void)
        case finish
    }

    let queue: DispatchQueue
    let hub: EventHub
    let errorCallback: Connection.ErrorCallback?
    /// Where events are logged, on the I/O thread, as they are reported.
    let log: ComponentLog
    private var batch: [Delivery] = []

    init(queue: DispatchQueue, hub: EventHub, errorCallback: Connection.ErrorCallback?, log: ComponentLog) {
        self.queue = queue
        self.hub = hub
        self.errorCallback = errorCallback
        self.log = log
    }

    /// Whether `transmitted` events are wanted (a listener added without sparing them).
    var wantsTransmitted: Bool { hub.hasListenersToAll }

    /// The most reports handed over in one block.
    static let sliceLimit = 4_096

    mutating func event(_ event: ConnectionEvent) {
        log.record(event)
        if hub.hasListeners { append(.event(event)) }
    }

    /// Adds `delivery`, handing the block over once it holds ``sliceLimit``: the serial
    /// queue keeps the order across blocks.
    private mutating func append(_ delivery: Delivery) {
        if batch.isEmpty { batch.reserveCapacity(64) }
        batch.append(delivery)
        if batch.count >= Self.sliceLimit { flush() }
    }

    /// node-apn's errorCallback for notification `index` of `record` (the notification's
    /// own callback when it has one); the device is looked up on the callback queue.
    mutating func errorCallback(_ code: ErrorCallbackCode, _ record: PushRecord?, index: UInt32 = 0) {
        append(.errorCallback(code, record, index))
    }

    /// The outcome of notification `index` of `record`, for its completion handler if it
    /// has one.
    mutating func outcome(_ record: PushRecord, index: UInt32, _ outcome: NotificationOutcome) {
        if record.completion != nil { append(.outcome(record, index, outcome)) }
    }

    mutating func reply(_ reply: @escaping @Sendable (DeliveryReport) -> Void, _ report: DeliveryReport) {
        append(.reply(reply, report))
    }

    mutating func call(_ body: @escaping @Sendable () -> Void) {
        append(.call(body))
    }

    mutating func finish() {
        append(.finish)
    }

    /// Hands the collected reports to the callback queue.
    mutating func flush() {
        guard !batch.isEmpty else { return }
        let deliveries = batch
        batch = []
        let hub = hub
        let errorCallback = errorCallback
        queue.async {
            var listeners: [EventHub.Listener]?
            for delivery in deliveries {
                switch delivery {
                case .event(let event):
                    let current = listeners ?? hub.snapshot()
                    listeners = current
                    for listener in current { listener(event) }
                case .errorCallback(let code, let record, let index):
                    if let record, let own = record.notification.errorCallback {
                        own(code, record.device(at: index))
                    } else {
                        errorCallback?(code, record?.notification, record?.device(at: index))
                    }
                case .outcome(let record, let index, let outcome):
                    record.completion?(Int(index), outcome)
                case .reply(let reply, let report):
                    reply(report)
                case .call(let body):
                    body()
                case .finish:
                    hub.finish()
                }
            }
        }
    }
}
