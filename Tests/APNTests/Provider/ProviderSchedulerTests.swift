@testable import APN
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

@Suite("HTTP/2 provider API: the scheduler's table", .threadPerTest)
struct ProviderSchedulerTests {
    static let configuration = ProviderScheduler.Configuration(
        requestTimeout: .seconds(10), retryLimit: 2, initialBackoff: .milliseconds(50),
        serverErrorBackoff: .milliseconds(100), maxBackoff: .milliseconds(300),
        refusalLimit: 2)

    static func request(_ byte: UInt8 = 1) -> ProviderRequest {
        let device = try! Device(token: [UInt8](repeating: byte, count: 32))
        return try! ProviderRequest(
            PushNotification().setBadge(1), to: device, authority: "a", defaultTopic: "t", requiresTopic: true)
    }

    static let apnsID = UUID(uuidString: "eabeae54-14a8-11e5-b60b-1697f925ec7b")

    static func at(_ milliseconds: Int64) -> Timestamp { Timestamp(nanoseconds: milliseconds * 1_000_000) }

    @Test("FIFO: requests are taken in the order enqueued, each counting an attempt")
    func fifo() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let first = scheduler.enqueue(Self.request(1))
        let second = scheduler.enqueue(Self.request(2))
        #expect(scheduler.take(now: .zero)?.id == first)
        #expect(scheduler.take(now: .zero)?.id == second)
        #expect(scheduler.take(now: .zero) == nil)
        #expect(scheduler.count == 2)
    }

    @Test("200 completes delivered with the apns-id")
    func delivered() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let id = scheduler.enqueue(Self.request())
        _ = scheduler.take(now: .zero)
        let done = scheduler.answered(id, ProviderAnswer(status: 200, apnsID: Self.apnsID), now: Self.at(5), canRenewToken: true)
        #expect(done?.response.isSuccess == true)
        #expect(done?.response.apnsID == Self.apnsID)
        #expect(done?.response.attempts == 1)
        #expect(scheduler.count == 0)
    }

    @Test("an answer for a request already completed (cancelled, timed out) is dropped: one outcome, nothing queued")
    func answerAfterCompletionIsDropped() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let cancelled = scheduler.enqueue(Self.request(1))
        let timedOut = scheduler.enqueue(Self.request(2))
        _ = scheduler.take(now: .zero)
        _ = scheduler.take(now: .zero)
        #expect(scheduler.cancel(cancelled)?.response.error?.code == .cancelled)
        #expect(scheduler.tick(now: Self.at(10_001)).map(\.id) == [timedOut])
        var completions = RingBuffer<ProviderScheduler.Completion>()
        for id in [cancelled, timedOut] {
            let completed = scheduler.answered(
                id, ProviderAnswer(status: 200, apnsID: Self.apnsID), now: Self.at(10_002), canRenewToken: true,
                into: &completions)
            #expect(!completed)
        }
        let queued = completions.count
        #expect(queued == 0)
        #expect(scheduler.count == 0 && scheduler.readyCount == 0)
        #expect(scheduler.take(now: Self.at(10_003)) == nil)
    }

    @Test("503: backs off 100 ms, then 200 ms, and after the retry limit completes retriesExhausted")
    func backoffAndLimit() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let id = scheduler.enqueue(Self.request())
        let busy = ProviderAnswer(status: 503, reason: .serviceUnavailable)
        _ = scheduler.take(now: .zero)
        #expect(scheduler.answered(id, busy, now: Self.at(0), canRenewToken: true) == nil)
        #expect(scheduler.take(now: .zero) == nil)
        #expect(scheduler.nextDeadline() == Self.at(100))
        _ = scheduler.tick(now: Self.at(99))
        #expect(scheduler.take(now: .zero) == nil)
        _ = scheduler.tick(now: Self.at(100))
        #expect(scheduler.take(now: .zero)?.id == id)
        #expect(scheduler.answered(id, busy, now: Self.at(100), canRenewToken: true) == nil)
        #expect(scheduler.nextDeadline() == Self.at(300))
        _ = scheduler.tick(now: Self.at(300))
        #expect(scheduler.take(now: .zero)?.id == id)
        let done = scheduler.answered(id, busy, now: Self.at(300), canRenewToken: true)
        #expect(done?.response.error?.code == .retriesExhausted)
        #expect(done?.response.error?.reason == .serviceUnavailable)
        #expect(done?.response.attempts == 3)
    }

    @Test("4xx reasons are never retried")
    func noRetryFor4xx() {
        for reason in [ProviderReason.badDeviceToken, .unregistered, .payloadTooLarge, .invalidProviderToken] {
            var scheduler = ProviderScheduler(configuration: Self.configuration)
            let id = scheduler.enqueue(Self.request())
            _ = scheduler.take(now: .zero)
            let done = scheduler.answered(
                id, ProviderAnswer(status: reason.status!, reason: reason), now: Self.at(1), canRenewToken: true)
            #expect(done?.response.error?.code == .rejected)
            #expect(done?.response.reason == reason)
        }
    }

    @Test("ExpiredProviderToken: retried once at the front when the token can be renewed, then reported")
    func expiredToken() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let expired = ProviderAnswer(status: 403, reason: .expiredProviderToken)
        let id = scheduler.enqueue(Self.request(1))
        let other = scheduler.enqueue(Self.request(2))
        _ = scheduler.take(now: .zero)
        #expect(scheduler.answered(id, expired, now: Self.at(1), canRenewToken: true) == nil)
        #expect(scheduler.take(now: .zero)?.id == id)
        #expect(scheduler.answered(id, expired, now: Self.at(2), canRenewToken: true)?.response.reason == .expiredProviderToken)
        _ = scheduler.take(now: .zero)
        #expect(scheduler.answered(other, expired, now: Self.at(2), canRenewToken: false)?.response.error?.code == .rejected)
    }

    @Test("a refused stream goes back to the front; a lost one fails and is never resent")
    func refusedAndLost() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let a = scheduler.enqueue(Self.request(1))
        let b = scheduler.enqueue(Self.request(2))
        let c = scheduler.enqueue(Self.request(3))
        _ = scheduler.take(now: .zero)
        _ = scheduler.take(now: .zero)
        #expect(scheduler.refused(b) == nil)
        #expect(scheduler.take(now: .zero)?.id == b)
        let lost = scheduler.failInFlight(a, ProviderError(code: .connectionFailed, message: "reset"))
        #expect(lost?.response.error?.code == .connectionFailed)
        #expect(scheduler.take(now: .zero)?.id == c)
        #expect(scheduler.refused(b) == nil)
        _ = scheduler.take(now: .zero)
        #expect(scheduler.refused(b)?.response.error?.code == .retriesExhausted)
    }

    @Test("deadlines count from the write: a waiting request never times out; one in flight does, may have been delivered, and is reset")
    func timeouts() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let first = scheduler.enqueue(Self.request(1))
        let waiting = scheduler.enqueue(Self.request(2))
        #expect(scheduler.nextDeadline() == nil, "time in our own queue is not the server's fault")
        _ = scheduler.take(now: Self.at(5_000))
        #expect(scheduler.nextDeadline() == Self.at(15_000), "requestTimeout from the write")
        #expect(scheduler.tick(now: Self.at(14_999)).isEmpty)
        scheduler.sent(first, socket: 1, stream: 3)
        let timedOut = scheduler.tick(now: Self.at(15_000))
        #expect(timedOut.map(\.id) == [first])
        #expect(timedOut.first?.stream?.stream == 3)
        #expect(timedOut.first?.response.error?.code == .timedOut)
        #expect(timedOut.first?.response.mayHaveBeenDelivered == true)
        #expect(scheduler.tick(now: Self.at(60_000)).isEmpty, "the waiting one has no deadline")
        #expect(scheduler.take(now: Self.at(60_000))?.id == waiting)
        #expect(scheduler.nextDeadline() == Self.at(70_000))
        #expect(scheduler.answered(first, ProviderAnswer(status: 200), now: Self.at(60_001), canRenewToken: true) == nil)
    }

    @Test("a request written again gets a new deadline; the first write's no longer counts")
    func rewrittenDeadline() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let id = scheduler.enqueue(Self.request(1))
        _ = scheduler.take(now: Self.at(0))
        #expect(scheduler.refused(id) == nil)
        _ = scheduler.take(now: Self.at(4_000))
        #expect(scheduler.tick(now: Self.at(10_000)).isEmpty, "the first write's deadline is stale")
        #expect(scheduler.nextDeadline() == Self.at(14_000))
        #expect(scheduler.tick(now: Self.at(14_000)).first?.response.error?.code == .timedOut)
        #expect(scheduler.count == 0)
    }

    @Test("429 backs off from initialBackoff, 5xx from serverErrorBackoff; every 5xx is retried")
    func backoffByStatus() {
        for (status, reason, wait) in [
            (429, ProviderReason.tooManyRequests, Int64(50)), (500, .internalServerError, 100), (502, nil, 100),
            (503, .serviceUnavailable, 100),
        ] {
            var scheduler = ProviderScheduler(configuration: Self.configuration)
            let id = scheduler.enqueue(Self.request())
            _ = scheduler.take(now: .zero)
            #expect(scheduler.answered(id, ProviderAnswer(status: status, reason: reason), now: .zero, canRenewToken: true) == nil)
            #expect(scheduler.nextDeadline() == Self.at(wait), "\(status)")
        }
    }

    @Test("cancel and failWaiting complete exactly once")
    func cancelAndFail() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let a = scheduler.enqueue(Self.request(1))
        let b = scheduler.enqueue(Self.request(2))
        let c = scheduler.enqueue(Self.request(3))
        _ = scheduler.take(now: .zero)
        #expect(scheduler.cancel(b)?.response.error?.code == .cancelled)
        #expect(scheduler.cancel(b) == nil)
        let failed = scheduler.failWaiting(ProviderError(code: .shutDown, message: "closed"))
        #expect(failed.map(\.id) == [c])
        #expect(scheduler.take(now: .zero) == nil)
        #expect(scheduler.count == 1)
        #expect(scheduler.failInFlight(a, ProviderError(code: .shutDown, message: "closed")) != nil)
    }

    @Test("cancelling a send withdraws its requests, waiting or in flight, and no others")
    func cancelBySend() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let send = ProviderCancellation()
        let reply = ProviderReply(index: 0, target: ProviderReplyTarget(cancellation: send) { _, _ in })
        let a = scheduler.enqueue(Self.request(1), completion: reply)
        let b = scheduler.enqueue(Self.request(3), completion: reply)
        send.note(a..<b + 1)
        let other = scheduler.enqueue(Self.request(2))
        #expect(scheduler.take(now: .zero)?.id == a)
        #expect(scheduler.readyCount == 2)
        let withdrawn = scheduler.cancel(send)
        #expect(withdrawn.map(\.id) == [a, b])
        #expect(withdrawn.first?.stream == nil)
        #expect(withdrawn.allSatisfy { $0.response.error?.code == .cancelled })
        // The withdrawn one left its id in the ready queue; it is not counted as ready.
        #expect(scheduler.readyCount == 1)
        #expect(scheduler.take(now: .zero)?.id == other)
        #expect(scheduler.readyCount == 0)
        #expect(scheduler.count == 1)
    }

    @Test("the table keeps ids in order across many completions out of order")
    func tableOrder() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        var ids: [Int] = []
        for n in 0..<3_000 { ids.append(scheduler.enqueue(Self.request(UInt8(n % 256)))) }
        for _ in ids { _ = scheduler.take(now: .zero) }
        // Answer every other one, then the rest backwards: the oldest deadline is always right.
        for id in ids where id % 2 == 0 {
            #expect(scheduler.answered(id, ProviderAnswer(status: 200), now: Self.at(0), canRenewToken: true) != nil)
        }
        #expect(scheduler.nextDeadline() == Self.at(10_000 + Int64(ids.firstIndex { $0 % 2 != 0 }!)))
        for id in ids.reversed() where id % 2 != 0 {
            #expect(scheduler.answered(id, ProviderAnswer(status: 200), now: Self.at(0), canRenewToken: true) != nil)
        }
        #expect(scheduler.count == 0)
        #expect(scheduler.nextDeadline() == nil)
        let later = scheduler.enqueue(Self.request())
        #expect(scheduler.take(now: .zero)?.id == later)
    }

    @Test("backoff doubles and is capped")
    func backoffCurve() {
        let scheduler = ProviderScheduler(configuration: Self.configuration)
        #expect((1...4).map { scheduler.backoff(afterRetry: $0) } == [
            .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(300),
        ])
        #expect((1...3).map { scheduler.backoff(afterRetry: $0, serverError: true) } == [
            .milliseconds(100), .milliseconds(200), .milliseconds(300),
        ])
    }
}

extension ProviderScheduler {
    /// ``answered(_:_:now:canRenewToken:into:)`` as the tests read it: the completion it
    /// made, if any.
    mutating func answered(_ id: ID, _ answer: ProviderAnswer, now: Timestamp, canRenewToken: Bool) -> Completion? {
        var completions = RingBuffer<Completion>()
        guard answered(id, answer, now: now, canRenewToken: canRenewToken, into: &completions) else { return nil }
        return completions.removeFirst()
    }
}
