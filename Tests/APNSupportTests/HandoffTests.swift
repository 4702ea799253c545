import APNSupport
import APNTestSupport
import APNTestTraits
import Dispatch
import Testing

/// `Handoff`: a value given once and taken once, by a waiting thread.
@Suite(.threadPerTest) struct HandoffTests {
    @Test func aTimedTakeOfAnEmptyHandoffReturnsNilAndTheHandoffCanStillBeTaken() {
        let handoff = Handoff<[Int]>()
        #expect(handoff.take(waitingAtMost: .milliseconds(1)) == nil)
        handoff.put([1, 2])
        #expect(handoff.take(waitingAtMost: .seconds(10)) == [1, 2])
    }

    @Test func aValueGivenAtInitIsTakenAtOnce() {
        #expect(Handoff("ready").take() == "ready")
        #expect(Handoff(7).take(waitingAtMost: .seconds(10)) == 7)
    }

    @Test func aValuePutFromAnotherThreadWakesTheTaker() {
        let handoff = Handoff<String>()
        DispatchQueue.global().async { handoff.put("from elsewhere") }
        #expect(handoff.take() == "from elsewhere")
    }
}

/// `Duration.wholeNanoseconds`, for Dispatch deadlines.
@Suite(.threadPerTest) struct DurationNanosecondsTests {
    @Test func wholeNanosecondsRoundDownAndSaturate() {
        #expect(Duration.milliseconds(1500).wholeNanoseconds == 1_500_000_000)
        #expect((Duration.nanoseconds(7) + .init(secondsComponent: 0, attosecondsComponent: 999_999_999)).wholeNanoseconds == 7)
        #expect(Duration.seconds(Int64.max).wholeNanoseconds == (1 << 32) * 1_000_000_000)
        #expect(Duration.seconds(-2).wholeNanoseconds == -2_000_000_000)
    }
}
