import APN
import Testing
import APNTestSupport
import APNTestTraits

/// The poller's schedule without sockets or threads: every row of its table, with the time
/// given explicitly.
@Suite("Feedback: the schedule state machine", .threadPerTest)
struct FeedbackScheduleStateTests {
    static func at(_ seconds: Double) -> Timestamp { .seconds(seconds) }

    @Test("start: a visit now, then one every interval; ticks in between wait")
    func startThenInterval() {
        var state = FeedbackScheduleState(interval: .seconds(60))
        let r1 = state.start(now: Self.at(0))
        #expect(r1, "the first start makes the polling thread")
        let r2 = state.next(now: Self.at(0))
        #expect(r2 == .visit(generation: 0))
        state.endVisit(now: Self.at(1), stop: false)
        let r3 = state.next(now: Self.at(1))
        #expect(r3 == .wait(until: Self.at(60)))
        let r4 = state.next(now: Self.at(60))
        #expect(r4 == .visit(generation: 0))
        state.endVisit(now: Self.at(61), stop: false)
        let r5 = state.next(now: Self.at(61))
        #expect(r5 == .wait(until: Self.at(120)))
    }

    @Test("a zero, negative or nil interval is off: start visits once, then the thread ends",
          arguments: [nil, Duration.zero, .seconds(-5)])
    func noInterval(interval: Duration?) {
        var state = FeedbackScheduleState(interval: interval)
        #expect(state.interval == nil)
        let r6 = state.next(now: Self.at(0))
        #expect(r6 == .exit, "nothing before start()")
        let r7 = state.start(now: Self.at(0))
        #expect(r7)
        let r8 = state.next(now: Self.at(0))
        #expect(r8 == .visit(generation: 0))
        state.endVisit(now: Self.at(1), stop: false)
        let r9 = state.next(now: Self.at(1000))
        #expect(r9 == .exit)
        #expect(!state.threadRunning)
        let r10 = state.start(now: Self.at(2000))
        #expect(r10, "each start() polls once more")
        let r11 = state.next(now: Self.at(2000))
        #expect(r11 == .visit(generation: 0))
    }

    @Test("start during a visit: that visit serves it, no second one; the interval counts from the start")
    func startDuringVisit() {
        var state = FeedbackScheduleState(interval: .seconds(60))
        _ = state.start(now: Self.at(0))
        let r12 = state.next(now: Self.at(0))
        #expect(r12 == .visit(generation: 0))
        let r13 = state.start(now: Self.at(30))
        #expect(!r13, "the polling thread is already there")
        let r14 = state.start(now: Self.at(31))
        #expect(!r14)
        state.endVisit(now: Self.at(40), stop: false)
        let r15 = state.next(now: Self.at(40))
        #expect(r15 == .wait(until: Self.at(91)), "no follow-up visit")
        let r16 = state.next(now: Self.at(60))
        #expect(r16 == .wait(until: Self.at(91)), "the old rhythm is gone")
        let r17 = state.next(now: Self.at(91))
        #expect(r17 == .visit(generation: 0))
    }

    @Test("start while waiting: a visit now, and the interval counts from it")
    func startWhileWaiting() {
        var state = FeedbackScheduleState(interval: .seconds(60))
        _ = state.start(now: Self.at(0))
        _ = state.next(now: Self.at(0))
        state.endVisit(now: Self.at(1), stop: false)
        let r18 = state.start(now: Self.at(45))
        #expect(!r18)
        let r19 = state.next(now: Self.at(45))
        #expect(r19 == .visit(generation: 0))
        state.endVisit(now: Self.at(46), stop: false)
        let r20 = state.next(now: Self.at(46))
        #expect(r20 == .wait(until: Self.at(105)))
    }

    @Test("cancel: the visit in progress is cancelled, nothing more is scheduled, the thread ends")
    func cancel() {
        var state = FeedbackScheduleState(interval: .seconds(60))
        _ = state.start(now: Self.at(0))
        let r21 = state.next(now: Self.at(0))
        #expect(r21 == .visit(generation: 0))
        let r22 = state.cancel()
        #expect(r22, "a visit was in progress")
        #expect(state.isCancelled(0))
        #expect(state.stopped)
        state.endVisit(now: Self.at(1), stop: false)
        let r23 = state.next(now: Self.at(600))
        #expect(r23 == .exit)
        let r24 = state.cancel()
        #expect(!r24, "idempotent; no visit now")
    }

    @Test("start after cancel: polling again, at once and on the interval")
    func startAfterCancel() {
        var state = FeedbackScheduleState(interval: .seconds(60))
        _ = state.start(now: Self.at(0))
        _ = state.next(now: Self.at(0))
        state.endVisit(now: Self.at(1), stop: false)
        _ = state.cancel()
        let r25 = state.next(now: Self.at(5))
        #expect(r25 == .exit)
        let r26 = state.start(now: Self.at(10))
        #expect(r26, "a new polling thread")
        #expect(!state.stopped)
        let r27 = state.next(now: Self.at(10))
        #expect(r27 == .visit(generation: 1))
        #expect(!state.isCancelled(1))
        state.endVisit(now: Self.at(11), stop: false)
        let r28 = state.next(now: Self.at(70))
        #expect(r28 == .visit(generation: 1))
    }

    @Test("cancel then start while the cancelled visit is still ending: a new visit follows it")
    func startWhileCancelledVisitEnds() {
        var state = FeedbackScheduleState(interval: .seconds(60))
        _ = state.start(now: Self.at(0))
        let r29 = state.next(now: Self.at(0))
        #expect(r29 == .visit(generation: 0))
        _ = state.cancel()
        let r30 = state.start(now: Self.at(1))
        #expect(!r30, "the thread is still in the cancelled visit")
        #expect(state.isCancelled(0), "start() does not revive the cancelled visit")
        state.endVisit(now: Self.at(2), stop: false)
        let r31 = state.next(now: Self.at(2))
        #expect(r31 == .visit(generation: 1))
    }

    @Test("ticks that fall during a long visit are skipped, keeping the rhythm")
    func missedTicksSkipped() {
        var state = FeedbackScheduleState(interval: .seconds(60))
        _ = state.start(now: Self.at(0))
        _ = state.next(now: Self.at(0))
        state.endVisit(now: Self.at(150), stop: false)
        let r32 = state.next(now: Self.at(150))
        #expect(r32 == .wait(until: Self.at(180)))
        let r33 = state.next(now: Self.at(180))
        #expect(r33 == .visit(generation: 0))
        state.endVisit(now: Self.at(240), stop: false)
        let r34 = state.next(now: Self.at(240))
        #expect(r34 == .wait(until: Self.at(300)), "a tick at the visit's end is missed too")
    }

    @Test("unusable credentials stop polling until start")
    func credentialsStop() {
        var state = FeedbackScheduleState(interval: .seconds(60))
        _ = state.start(now: Self.at(0))
        _ = state.next(now: Self.at(0))
        _ = state.start(now: Self.at(0.5))  // served by the failing visit
        state.endVisit(now: Self.at(1), stop: true)
        #expect(state.stopped)
        let r35 = state.next(now: Self.at(1000))
        #expect(r35 == .exit)
        let r36 = state.start(now: Self.at(1001))
        #expect(r36)
        let r37 = state.next(now: Self.at(1001))
        #expect(r37 == .visit(generation: 0))
    }
}
