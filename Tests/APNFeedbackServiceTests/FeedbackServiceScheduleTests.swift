@testable import APNFeedbackService
import Testing

/// `FeedbackServiceSchedule`, the feedback service's pure decisions, as tables: each row a
/// sequence of steps and the decision after each.
@Suite struct FeedbackServiceScheduleTests {
    enum Step: CustomStringConvertible {
        case visited, skipped, failed, failedFinal, commitFailed, leaseLost
        var description: String { "\(self)" }
    }

    static func run(_ interval: Duration?, _ steps: [Step]) -> [FeedbackServiceSchedule.Next] {
        var schedule = FeedbackServiceSchedule(interval: interval)
        return steps.map { step in
            switch step {
            case .visited: return schedule.visited()
            case .skipped: return schedule.skipped()
            case .failed: return schedule.failed(final: false)
            case .failedFinal: return schedule.failed(final: true)
            case .commitFailed: return schedule.commitFailed()
            case .leaseLost: return schedule.leaseLost()
            }
        }
    }

    static let hour: Duration = .seconds(3600)

    @Test("every interval: a success waits the interval; failures back off 1, 2, 4 … s up to it; a success forgets them")
    func polling() {
        #expect(Self.run(Self.hour, [.visited, .visited]) == [.wait(Self.hour), .wait(Self.hour)])
        #expect(
            Self.run(Self.hour, [.failed, .failed, .skipped, .failed, .visited, .failed])
                == [.wait(.seconds(1)), .wait(.seconds(2)), .wait(.seconds(4)), .wait(.seconds(8)), .wait(Self.hour),
                    .wait(.seconds(1))])
    }

    @Test("the backoff never passes the interval, however many failures")
    func backoffCapped() {
        let next = Self.run(.seconds(10), Array(repeating: .failed, count: 40))
        #expect(next.prefix(5) == [.wait(.seconds(1)), .wait(.seconds(2)), .wait(.seconds(4)), .wait(.seconds(8)), .wait(.seconds(10))])
        #expect(next.dropFirst(4).allSatisfy { $0 == .wait(.seconds(10)) })
        // 2^20 s is the largest step tried: an interval of a week is reached, not overflowed.
        let week: Duration = .seconds(7 * 86_400)
        #expect(Self.run(week, Array(repeating: .skipped, count: 64)).last == .wait(week))
    }

    @Test("once: a success finishes, a skip or a failure ends the run, nothing waits")
    func once() {
        #expect(Self.run(nil, [.visited]) == [.end(.finished)])
        #expect(Self.run(nil, [.skipped]) == [.end(.storeUnwritable)])
        #expect(Self.run(nil, [.failed]) == [.end(.visitFailed)])
    }

    @Test("ends whatever the interval: unusable credentials, a failed commit, a lost lease")
    func endings() {
        for interval in [Self.hour, nil] {
            #expect(Self.run(interval, [.failedFinal]) == [.end(.visitFailed)])
            #expect(Self.run(interval, [.commitFailed]) == [.end(.notCommitted)])
            #expect(Self.run(interval, [.leaseLost]) == [.end(.leaseLost)])
        }
    }

    @Test("the failures counted are those since the last success")
    func failureCount() {
        var schedule = FeedbackServiceSchedule(interval: Self.hour)
        _ = schedule.failed(final: false)
        _ = schedule.skipped()
        #expect(schedule.failures == 2)
        _ = schedule.visited()
        #expect(schedule.failures == 0)
    }
}
