import Dispatch

/// Collects what the I/O thread reports during one turn of its loop and hands it to the
/// callback queue as one block, so callbacks run in order, off the I/O thread, at a cost
/// of one dispatch per turn rather than one per report — or per ``sliceLimit`` reports, for
/// a turn that settles a million notifications at once (a final confirmation) would
/// otherwise build, and grow by doubling, one array of them all.
///
/// Outcomes come mostly in runs: a confirmation settles a record's notifications in order,
/// each with the same acceptance. A run is kept as one delivery (``OutcomeRun``) rather
/// than one per notification: each had cost an enum built, appended (the array grown by
/// copying), copied out again, its record retained and released — about 600 instructions
/// a notification of the callback queue's and I/O thread's work, more than the completion
/// handler it served (callgrind, `apn send`, 2026-12-06).
struct CallbackDispatcher {
    enum Delivery: Sendable {
        case event(ConnectionEvent)
        /// The record and which of its notifications; nil where node-apn passed null.
        case errorCallback(ErrorCallbackCode, PushRecord?, UInt32)
        case outcomes(OutcomeRun)
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
    /// The reports `batch` holds, each notification of a run counted.
    private var reports = 0
    /// The run of outcomes still growing; joins `batch` before anything else does.
    private var run: OutcomeRun?

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
        closeRun()
        appendClosed(delivery)
    }

    /// Adds `delivery` (`count` reports) behind everything before it, the open run included.
    private mutating func appendClosed(_ delivery: Delivery, count: Int = 1) {
        if batch.isEmpty { batch.reserveCapacity(64) }
        batch.append(delivery)
        reports += count
        if reports >= Self.sliceLimit { flush() }
    }

    /// node-apn's errorCallback for notification `index` of `record` (the notification's
    /// own callback when it has one); the device is looked up on the callback queue.
    mutating func errorCallback(_ code: ErrorCallbackCode, _ record: PushRecord?, index: UInt32 = 0) {
        append(.errorCallback(code, record, index))
    }

    /// The outcome of notification `index` of `record`, for its completion handler if it
    /// has one.
    mutating func outcome(_ record: PushRecord, index: UInt32, _ outcome: NotificationOutcome) {
        guard record.completion != nil else { return }
        if run?.extend(record, index: index, outcome) != true {
            closeRun()
            run = OutcomeRun(record: record, first: index, outcome: outcome)
        }
        // A long run is handed over in slices too: the callbacks start while the I/O
        // thread settles the rest.
        if reports + Int(run?.count ?? 0) >= Self.sliceLimit { closeRun() }
    }

    /// Moves the open run, if any, into the batch.
    private mutating func closeRun() {
        guard let closed = run.take() else { return }
        appendClosed(.outcomes(closed), count: Int(closed.count))
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
        closeRun()
        guard !batch.isEmpty else { return }
        let deliveries = batch
        batch = []
        reports = 0
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
                case .outcomes(let run):
                    run.deliver()
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

/// Consecutive notifications of one record with the same outcome: notification `first`
/// and the `count - 1` after it.
struct OutcomeRun: Sendable {
    let record: PushRecord
    let first: UInt32
    private(set) var count: UInt32 = 1
    let outcome: NotificationOutcome

    init(record: PushRecord, first: UInt32, outcome: NotificationOutcome) {
        self.record = record
        self.first = first
        self.outcome = outcome
    }

    /// Takes notification `index` of `record` into the run when it is the next one and
    /// its outcome the same; false otherwise (and nothing changes).
    mutating func extend(_ record: PushRecord, index: UInt32, _ outcome: NotificationOutcome) -> Bool {
        // The indices first: comparing outcomes costs more, and a different index is the
        // usual end of a run (a new record starts at 0).
        guard index == first &+ count, record === self.record, outcome == self.outcome else { return false }
        count += 1
        return true
    }

    /// Calls the record's completion handler for each notification, in order.
    func deliver() {
        guard let completion = record.completion else { return }
        for offset in 0..<count { completion(Int(first + offset), outcome) }
    }
}
