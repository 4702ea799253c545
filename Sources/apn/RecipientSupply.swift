import APN
import APNSupport
import Dispatch
import Synchronization

/// `apn send`'s recipients as the tokens file is read: a large file is read on a thread of
/// its own while the first of its tokens are sent, rather than all of it first. Sending is
/// the connection's I/O thread's work and leaves the other core mostly idle; reading a
/// million tokens had taken a quarter of the whole send's time before the first was sent.
/// Devices are handed out in order, a chunk at a time (``take(from:limit:whenMore:)``);
/// the bad lines and the count are known once the reading ends (``finished()``).
final class RecipientSupply: Sendable {
    /// A chunk asked for.
    enum Chunk {
        /// The devices from the position asked for (at least one); `isLast` when no more
        /// will come.
        case devices([Device], isLast: Bool)
        /// None read yet past the position: `whenMore` is called once some are, or the
        /// reading ends.
        case pending
        /// Every device was handed out.
        case end
    }

    /// Everything read, once the reading ended.
    struct Finished: Sendable {
        let devices: [Device]
        let bad: [TokenList.BadLine]
        /// Why the file could not be read to its end (the devices before were read).
        let failure: UsageError?
    }

    private struct State {
        var devices: [Device] = []
        var bad: [TokenList.BadLine] = []
        var failure: UsageError?
        var isFinished = false
        var whenMore: (@Sendable () -> Void)?
    }

    private let state: Lock<State>
    private let ended = Latch()
    /// Signalled once something was read, or the reading ended.
    private let first = DispatchSemaphore(value: 0)
    /// Whether everything was read before the send began (no thread reads on).
    let wasCompleteAtStart: Bool

    /// Recipients read before the send.
    init(complete list: TokenList) {
        state = Lock(State(devices: list.devices, bad: list.bad, isFinished: true))
        wasCompleteAtStart = true
        ended.open()
        first.signal()
    }

    /// Recipients still being read: `add` and `finish` are called by the reader.
    init() {
        state = Lock(State())
        wasCompleteAtStart = false
    }

    /// Adds what the reader read since last time.
    func add(_ devices: [Device], bad: [TokenList.BadLine]) {
        guard !devices.isEmpty || !bad.isEmpty else { return }
        let waiter = state.withLock { state in
            state.devices += devices
            state.bad += bad
            return devices.isEmpty ? nil : state.whenMore.take()
        }
        first.signal()
        waiter?()
    }

    /// The reading ended (`failure` when the file could not be read on).
    func finish(failure: UsageError? = nil) {
        let waiter = state.withLock { state in
            state.failure = failure
            state.isFinished = true
            return state.whenMore.take()
        }
        ended.open()
        first.signal()
        waiter?()
    }

    /// Returns once something was read, or the reading ended.
    func waitForAnything() {
        first.wait()
        first.signal()  // for the next caller
    }

    /// Whether the reading ended with nothing read.
    var isEmptyAndFinished: Bool {
        state.withLock { $0.isFinished && $0.devices.isEmpty && $0.bad.isEmpty }
    }

    /// Why the reading ended, when it ended before anything was read.
    var failureBeforeAnything: UsageError? {
        state.withLock { $0.devices.isEmpty && $0.bad.isEmpty ? $0.failure : nil }
    }

    /// Up to `limit` devices from position `start`.
    func take(from start: Int, limit: Int, whenMore: @escaping @Sendable () -> Void) -> Chunk {
        state.withLock { state in
            if start < state.devices.count {
                let end = start + min(limit, state.devices.count - start)
                return .devices(Array(state.devices[start..<end]), isLast: state.isFinished && end == state.devices.count)
            }
            if state.isFinished { return .end }
            state.whenMore = whenMore
            return .pending
        }
    }

    /// Everything read, once the reading ended (at once for recipients read before).
    func finished() async -> Finished {
        await ended.wait()
        return everything
    }

    /// Everything read, for recipients read before the send (``wasCompleteAtStart``).
    var complete: Finished {
        precondition(wasCompleteAtStart, "the recipients are still being read")
        return everything
    }

    private var everything: Finished {
        state.withLock { Finished(devices: $0.devices, bad: $0.bad, failure: $0.failure) }
    }
}
