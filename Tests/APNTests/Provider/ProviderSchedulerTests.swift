@testable import APN
import Foundation
import Testing
import TestSupport

@Suite("HTTP/2 provider API: the scheduler's table", .threadPerTest)
struct ProviderSchedulerTests {
    static let configuration = ProviderScheduler.Configuration(
        requestTimeout: .seconds(10), retryLimit: 2, initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(300),
        refusalLimit: 2)

    static func request(_ byte: UInt8 = 1) -> ProviderRequest {
        let device = try! Device(token: [UInt8](repeating: byte, count: 32))
        return try! ProviderRequest(
            PushNotification().setBadge(1), to: device, authority: "a", defaultTopic: "t", requiresTopic: true)
    }

    static func at(_ milliseconds: Int64) -> Timestamp { Timestamp(nanoseconds: milliseconds * 1_000_000) }

    @Test("FIFO: requests are taken in the order enqueued, each counting an attempt")
    func fifo() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let first = scheduler.enqueue(Self.request(1), now: Self.at(0))
        let second = scheduler.enqueue(Self.request(2), now: Self.at(0))
        #expect(scheduler.take()?.id == first)
        #expect(scheduler.take()?.id == second)
        #expect(scheduler.take() == nil)
        #expect(scheduler.count == 2)
    }

    @Test("200 completes delivered with the apns-id")
    func delivered() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let id = scheduler.enqueue(Self.request(), now: Self.at(0))
        _ = scheduler.take()
        let done = scheduler.answered(id, ProviderAnswer(status: 200, apnsID: "x"), now: Self.at(5), canRenewToken: true)
        #expect(done?.response.isSuccess == true)
        #expect(done?.response.apnsID == "x")
        #expect(done?.response.attempts == 1)
        #expect(scheduler.count == 0)
    }

    @Test("503: backs off 100 ms, then 200 ms, and after the retry limit completes retriesExhausted")
    func backoffAndLimit() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let id = scheduler.enqueue(Self.request(), now: Self.at(0))
        let busy = ProviderAnswer(status: 503, reason: .serviceUnavailable)
        _ = scheduler.take()
        #expect(scheduler.answered(id, busy, now: Self.at(0), canRenewToken: true) == nil)
        #expect(scheduler.take() == nil)
        #expect(scheduler.nextDeadline() == Self.at(100))
        _ = scheduler.tick(now: Self.at(99))
        #expect(scheduler.take() == nil)
        _ = scheduler.tick(now: Self.at(100))
        #expect(scheduler.take()?.id == id)
        #expect(scheduler.answered(id, busy, now: Self.at(100), canRenewToken: true) == nil)
        #expect(scheduler.nextDeadline() == Self.at(300))
        _ = scheduler.tick(now: Self.at(300))
        #expect(scheduler.take()?.id == id)
        let done = scheduler.answered(id, busy, now: Self.at(300), canRenewToken: true)
        #expect(done?.response.error?.code == .retriesExhausted)
        #expect(done?.response.error?.reason == .serviceUnavailable)
        #expect(done?.response.attempts == 3)
    }

    @Test("4xx reasons are never retried")
    func noRetryFor4xx() {
        for reason in [ProviderReason.badDeviceToken, .unregistered, .payloadTooLarge, .invalidProviderToken] {
            var scheduler = ProviderScheduler(configuration: Self.configuration)
            let id = scheduler.enqueue(Self.request(), now: Self.at(0))
            _ = scheduler.take()
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
        let id = scheduler.enqueue(Self.request(1), now: Self.at(0))
        let other = scheduler.enqueue(Self.request(2), now: Self.at(0))
        _ = scheduler.take()
        #expect(scheduler.answered(id, expired, now: Self.at(1), canRenewToken: true) == nil)
        #expect(scheduler.take()?.id == id)
        #expect(scheduler.answered(id, expired, now: Self.at(2), canRenewToken: true)?.response.reason == .expiredProviderToken)
        _ = scheduler.take()
        #expect(scheduler.answered(other, expired, now: Self.at(2), canRenewToken: false)?.response.error?.code == .rejected)
    }

    @Test("a refused stream goes back to the front; a lost one fails and is never resent")
    func refusedAndLost() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let a = scheduler.enqueue(Self.request(1), now: Self.at(0))
        let b = scheduler.enqueue(Self.request(2), now: Self.at(0))
        let c = scheduler.enqueue(Self.request(3), now: Self.at(0))
        _ = scheduler.take()
        _ = scheduler.take()
        #expect(scheduler.refused(b) == nil)
        #expect(scheduler.take()?.id == b)
        let lost = scheduler.failInFlight(a, ProviderError(code: .connectionFailed, message: "reset"))
        #expect(lost?.response.error?.code == .connectionFailed)
        #expect(scheduler.take()?.id == c)
        #expect(scheduler.refused(b) == nil)
        _ = scheduler.take()
        #expect(scheduler.refused(b)?.response.error?.code == .retriesExhausted)
    }

    @Test("deadlines: waiting and in-flight requests time out; in-flight ones are reset")
    func timeouts() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let inFlight = scheduler.enqueue(Self.request(1), now: Self.at(0))
        let waiting = scheduler.enqueue(Self.request(2), now: Self.at(5))
        _ = scheduler.take()
        #expect(scheduler.nextDeadline() == Self.at(10_000))
        let early = scheduler.tick(now: Self.at(9_999))
        #expect(early.isEmpty)
        scheduler.sent(inFlight, socket: 1, stream: 3)
        let first = scheduler.tick(now: Self.at(10_000))
        #expect(first.map(\.id) == [inFlight])
        #expect(first.first?.stream?.stream == 3)
        #expect(first.first?.response.error?.code == .timedOut)
        let second = scheduler.tick(now: Self.at(10_005))
        #expect(second.map(\.id) == [waiting])
        #expect(second.first?.stream == nil)
        #expect(scheduler.take() == nil)
        #expect(scheduler.answered(inFlight, ProviderAnswer(status: 200), now: Self.at(10_006), canRenewToken: true) == nil)
    }

    @Test("cancel and failWaiting complete exactly once")
    func cancelAndFail() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let a = scheduler.enqueue(Self.request(1), now: Self.at(0))
        let b = scheduler.enqueue(Self.request(2), now: Self.at(0))
        let c = scheduler.enqueue(Self.request(3), now: Self.at(0))
        _ = scheduler.take()
        #expect(scheduler.cancel(b)?.response.error?.code == .cancelled)
        #expect(scheduler.cancel(b) == nil)
        let failed = scheduler.failWaiting(ProviderError(code: .shutDown, message: "closed"))
        #expect(failed.map(\.id) == [c])
        #expect(scheduler.take() == nil)
        #expect(scheduler.count == 1)
        #expect(scheduler.failInFlight(a, ProviderError(code: .shutDown, message: "closed")) != nil)
    }

    @Test("cancelling a send withdraws its requests, waiting or in flight, and no others")
    func cancelBySend() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        let send = ProviderCancellation()
        let a = scheduler.enqueue(Self.request(1), now: Self.at(0), cancellation: send)
        let b = scheduler.enqueue(Self.request(3), now: Self.at(0), cancellation: send)
        send.note(a..<b + 1)
        let other = scheduler.enqueue(Self.request(2), now: Self.at(0))
        #expect(scheduler.take()?.id == a)
        #expect(scheduler.readyCount == 2)
        let withdrawn = scheduler.cancel(send)
        #expect(withdrawn.map(\.id) == [a, b])
        #expect(withdrawn.first?.stream == nil)
        #expect(withdrawn.allSatisfy { $0.response.error?.code == .cancelled })
        // The withdrawn one left its id in the ready queue; it is not counted as ready.
        #expect(scheduler.readyCount == 1)
        #expect(scheduler.take()?.id == other)
        #expect(scheduler.readyCount == 0)
        #expect(scheduler.count == 1)
    }

    @Test("the table keeps ids in order across many completions out of order")
    func tableOrder() {
        var scheduler = ProviderScheduler(configuration: Self.configuration)
        var ids: [Int] = []
        for n in 0..<3_000 { ids.append(scheduler.enqueue(Self.request(UInt8(n % 256)), now: Self.at(Int64(n)))) }
        for _ in ids { _ = scheduler.take() }
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
        let later = scheduler.enqueue(Self.request(), now: Self.at(50))
        #expect(scheduler.take()?.id == later)
    }

    @Test("backoff doubles and is capped")
    func backoffCurve() {
        let scheduler = ProviderScheduler(configuration: Self.configuration)
        #expect((1...4).map { scheduler.backoff(afterRetry: $0) } == [
            .milliseconds(100), .milliseconds(200), .milliseconds(300), .milliseconds(300),
        ])
    }
}
