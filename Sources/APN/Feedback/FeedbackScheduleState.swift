/// When a ``Feedback`` poller visits the service, as a state machine with no clock and no
/// threads of its own: every input carries the time. ``FeedbackSchedule`` runs it under a
/// lock for the polling thread and the public calls.
///
/// | input | state | result |
/// |---|---|---|
/// | `start` | no visit in progress, or only a cancelled one | a visit now; the interval counts from now |
/// | `start` | a visit in progress | that visit is this start's visit (no second one alongside); the interval counts from now |
/// | `cancel` | any | no more visits; the visit in progress is cancelled; sequences end |
/// | `next` | a visit wanted now, or the interval due | visit |
/// | `next` | the interval not yet due | wait until it is |
/// | `next` | nothing scheduled | the polling thread ends |
/// | `endVisit` | interval ticks passed during the visit | skipped (node-apn's timer found a visit open) |
/// | `endVisit(stop:)` | the credentials cannot be used | no more visits until `start`; sequences end |
package struct FeedbackScheduleState {
    /// What the polling thread does next.
    package enum Step: Equatable {
        /// Visit the service; the visit is cancelled once ``isCancelled(_:)`` says so.
        case visit(generation: Int)
        /// Wait until the clock reaches the time, or until an input changes the state.
        case wait(until: Timestamp)
        /// Nothing is scheduled: the polling thread ends.
        case exit
    }

    /// The interval; `nil` when off (`nil`, zero or negative in the options).
    package let interval: Duration?
    /// A visit is wanted as soon as the polling thread can make it.
    package private(set) var pollNow = false
    /// When the interval's next visit is due; `nil`: none scheduled.
    package private(set) var due: Timestamp?
    /// The generation of the visit in progress; `nil`: none.
    package private(set) var visiting: Int?
    /// Advanced by every `cancel`: a visit of an older generation is cancelled.
    package private(set) var generation = 0
    /// Whether a polling thread exists (started by `start`, ended by `next`'s `.exit`).
    package private(set) var threadRunning = false
    /// Stopped by `cancel` or unusable credentials, and not started since.
    package private(set) var stopped = false
    /// Sequences (listener ids) to end once the visit in progress has been delivered.
    package var streamsToEnd: [Int] = []

    package init(interval: Duration?) {
        self.interval = interval.turnedOffIfZero
    }

    /// `start()`: returns whether a polling thread must be started.
    package mutating func start(now: Timestamp) -> Bool {
        stopped = false
        // A visit of the current generation is under way: it serves this start. A cancelled
        // one is ending: a new visit follows it.
        pollNow = visiting != generation
        due = interval.map { now + $0 }
        if threadRunning { return false }
        threadRunning = true
        return true
    }

    /// `cancel()`: returns whether a visit is in progress (its end is delivered before the
    /// sequences end).
    package mutating func cancel() -> Bool {
        generation += 1
        pollNow = false
        due = nil
        stopped = true
        return visiting != nil
    }

    /// Whether a visit begun as `generation` has been cancelled since.
    package func isCancelled(_ generation: Int) -> Bool {
        generation != self.generation
    }

    /// What the polling thread does now.
    package mutating func next(now: Timestamp) -> Step {
        precondition(visiting == nil, "a visit is still in progress")
        if pollNow {
            pollNow = false
            return beginVisit()
        }
        guard let due, let interval else {
            threadRunning = false
            return .exit
        }
        if now < due { return .wait(until: due) }
        self.due = due + interval
        return beginVisit()
    }

    /// The visit in progress ended at `now`; `stop`: the credentials cannot be used.
    package mutating func endVisit(now: Timestamp, stop: Bool) {
        visiting = nil
        if stop {
            pollNow = false
            due = nil
            stopped = true
            return
        }
        // Ticks that fell during the visit are skipped, as node-apn's timer found its visit
        // still open; the next one keeps the interval's rhythm.
        if let interval, let due, due <= now {
            let step = interval.nanosecondsSaturated
            let missed = (now.nanoseconds &- due.nanoseconds) / step + 1
            let (skip, overflow) = missed.multipliedReportingOverflow(by: step)
            self.due = overflow ? Timestamp(nanoseconds: .max) : due.adding(nanoseconds: skip)
        }
    }

    /// Takes the sequences waiting for the end of the visit.
    package mutating func takeStreamsToEnd() -> [Int] {
        defer { streamsToEnd = [] }
        return streamsToEnd
    }

    private mutating func beginVisit() -> Step {
        visiting = generation
        return .visit(generation: generation)
    }
}
