import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// The refusal log's rate limit, driven by explicit instants: no clock, no waiting.
@Suite(.threadPerTest) struct RefusalLogLimiterTests {
    let start = ContinuousClock.now

    /// The lines as `kind:count` text, for short expectations.
    private func text(_ lines: [(kind: ConnectionRefusal, count: Int)]) -> [String] {
        lines.map { "\($0.kind.rawValue):\($0.count)" }
    }

    @Test func theFirstRefusalIsLoggedAtOnceThenAtMostOneLineASecondCountingSinceTheLast() {
        var limiter = RefusalLogLimiter()
        #expect(text(limiter.lines(totals: [:], at: start)).isEmpty, "nothing refused, nothing said")
        #expect(text(limiter.lines(totals: [.overCap: 1], at: start)) == ["over_cap:1"])
        // An attack: thousands within the second, not a line.
        #expect(text(limiter.lines(totals: [.overCap: 500], at: start + .milliseconds(250))).isEmpty)
        #expect(text(limiter.lines(totals: [.overCap: 4_000], at: start + .milliseconds(999))).isEmpty)
        #expect(text(limiter.lines(totals: [.overCap: 4_001], at: start + .seconds(1))) == ["over_cap:4000"])
        #expect(text(limiter.lines(totals: [.overCap: 9_000], at: start + .milliseconds(1_500))).isEmpty)
        // Quiet for a while: the next line comes as soon as it is looked at.
        #expect(text(limiter.lines(totals: [.overCap: 9_000], at: start + .seconds(10))) == ["over_cap:4999"])
        #expect(text(limiter.lines(totals: [.overCap: 9_000], at: start + .seconds(20))).isEmpty, "nothing new")
        #expect(text(limiter.lines(totals: [.overCap: 9_001], at: start + .seconds(20))) == ["over_cap:1"])
    }

    @Test func eachKindHasItsOwnSecond() {
        var limiter = RefusalLogLimiter()
        #expect(text(limiter.lines(totals: [.overCap: 3], at: start)) == ["over_cap:3"])
        let later = start + .milliseconds(400)
        #expect(
            text(limiter.lines(totals: [.overCap: 7, .idleTimeout: 2, .handshakeFailure: 1], at: later))
                == ["idle_timeout:2", "handshake_failure:1"])
        #expect(
            text(limiter.lines(totals: [.overCap: 8, .idleTimeout: 5, .handshakeFailure: 1], at: start + .seconds(1)))
                == ["over_cap:5"])
        #expect(
            text(limiter.lines(totals: [.overCap: 8, .idleTimeout: 5, .handshakeFailure: 1], at: later + .seconds(1)))
                == ["idle_timeout:3"])
    }

    @Test func theRemainingLinesAtTheEndMakeEveryKindAddUpToItsTotal() {
        var limiter = RefusalLogLimiter()
        let totals: [ConnectionRefusal: Int] = [.overCap: 10, .idleTimeout: 50, .alpnRefused: 1]
        var logged = limiter.lines(totals: [.overCap: 1, .idleTimeout: 1], at: start)
        logged += limiter.lines(totals: totals, at: start + .milliseconds(10))
        logged += limiter.remaining(totals: totals)
        #expect(text(logged) == ["over_cap:1", "idle_timeout:1", "alpn_refused:1", "over_cap:9", "idle_timeout:49"])
        var sums: [ConnectionRefusal: Int] = [:]
        for line in logged { sums[line.kind, default: 0] += line.count }
        #expect(sums == totals)
        #expect(limiter.remaining(totals: totals).isEmpty, "said once")
    }

    @Test func theIntervalIsTheLimitersOwn() {
        var limiter = RefusalLogLimiter(interval: .milliseconds(100))
        #expect(text(limiter.lines(totals: [.threadStartFailure: 1], at: start)) == ["thread_start_failure:1"])
        #expect(text(limiter.lines(totals: [.threadStartFailure: 2], at: start + .milliseconds(99))).isEmpty)
        #expect(text(limiter.lines(totals: [.threadStartFailure: 2], at: start + .milliseconds(100))) == ["thread_start_failure:1"])
    }
}
