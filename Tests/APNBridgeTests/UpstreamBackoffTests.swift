import APNBridge
import Testing

/// The bridge's backoff after an upstream failure: no resend storm, and back at once when
/// upstream works.
@Suite("Bridge: upstream backoff")
struct UpstreamBackoffTests {
    @Test func takesConnectionsUntilAFailure() {
        let backoff = UpstreamBackoff()
        #expect(backoff.admits(at: .zero))
        #expect(backoff.refusingUntil == nil)
    }

    @Test func doublesWithEachFailureInARowUpToTheMaximum() {
        var backoff = UpstreamBackoff(initial: .seconds(1), maximum: .seconds(10))
        var now = Duration.seconds(100)
        var backoffs: [Duration] = []
        for _ in 0..<6 {
            backoff.failed(at: now)
            let until = backoff.refusingUntil!
            backoffs.append(until - now)
            #expect(!backoff.admits(at: now))
            #expect(!backoff.admits(at: until - .milliseconds(1)))
            #expect(backoff.admits(at: until))
            now = until
        }
        #expect(backoffs == [1, 2, 4, 8, 10, 10].map { Duration.seconds($0) })
    }

    @Test func failuresDuringTheBackoffDoNotLengthenIt() {
        var backoff = UpstreamBackoff()
        backoff.failed(at: .seconds(0))
        backoff.failed(at: .milliseconds(500))  // another connection of the same outage
        #expect(backoff.refusingUntil == .seconds(1))
        #expect(backoff.failures == 1)
    }

    @Test func aSuccessEndsTheBackoffAndStartsOver() {
        var backoff = UpstreamBackoff()
        backoff.failed(at: .seconds(0))
        backoff.failed(at: .seconds(1))
        #expect(backoff.refusingUntil == .seconds(3))
        backoff.succeeded()
        #expect(backoff.admits(at: .seconds(1)))
        backoff.failed(at: .seconds(10))
        #expect(backoff.refusingUntil == .seconds(11), "from the first backoff again")
    }
}
