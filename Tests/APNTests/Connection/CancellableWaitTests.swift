@testable import APN
import Testing
import APNTestSupport
import APNTestTraits

/// The hand-over between a report made on the I/O thread and a Task cancelled meanwhile:
/// whichever way it goes, the report is either returned or refused where it was made
/// (and then carried to the next report), never lost on its way.
@Suite("CancellableWait: claimed answers and cancellations", .timeLimit(.minutes(10)), .threadPerTest)
struct CancellableWaitTests {
    @Test("a claimed wait refuses the cancellation: the Task gets the claimed answer")
    func claimedThenCancelled() async {
        let wait = CancellableWait<Int>()
        let waiting = Task { await wait.wait(cancelled: { -1 }) {} }
        #expect(wait.claim(), "nothing answered yet")
        waiting.cancel()
        wait.deliver(7)
        #expect(await waiting.value == 7)
    }

    @Test("a cancelled wait refuses the claim: the answer can go to the next report")
    func cancelledThenClaimed() async {
        let wait = CancellableWait<Int>()
        let waiting = Task { await wait.wait(cancelled: { -1 }) {} }
        waiting.cancel()
        #expect(await waiting.value == -1)
        #expect(!wait.claim())
        wait.deliver(7)  // ignored
    }

    @Test("an answer claimed and delivered before the Task waits is returned when it does")
    func deliveredBeforeWaiting() async {
        let wait = CancellableWait<Int>()
        #expect(wait.claim())
        wait.deliver(7)
        #expect(await wait.wait(cancelled: { -1 }) {} == 7)
    }
}
