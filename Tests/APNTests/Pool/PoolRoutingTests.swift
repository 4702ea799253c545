import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Connection pool: routing, sockets and attempts", .threadPerTest)
struct PoolRoutingTests {
    @Test func nothingConnectsUntilTheFirstPushThenOneSocketCarriesTheQueue() {
        let h = PoolHarness()
        h.drain()
        #expect(h.connects.isEmpty, "lazy connect, minConnections included")
        h.push(1...3)
        #expect(h.connects == [0])
        h.opened(0)
        #expect(h.write(0) == [1, 2, 3])
        #expect(h.milestones == ["connected(1)", "completed"])
    }

    @Test func aSecondSocketOpensWhileTheFirstCannotTakeNotificationsAtOnceUpToMaxConnections() {
        let h = PoolHarness { $0.maxConnections = 2 }
        h.push(1...3)
        #expect(h.connects == [0, 1], "1 waits on a connecting socket: 2 opens another; 3 finds both busy")
        h.opened(0)
        h.opened(1)
        #expect(h.write(0) == [1, 3], "with every socket busy, the one with the shortest queue (the first on a tie)")
        #expect(h.write(1) == [2])
        #expect(h.milestones.prefix(2) == ["connected(1)", "connected(2)"], "open sockets counted by the pool")
        h.push(4...5)
        #expect(h.write(1) == [4, 5], "the socket filled last keeps them while it takes them at once")
        #expect(h.write(0).isEmpty)
    }

    @Test func minConnectionsOpensSocketsAtTheFirstPushAndReopensAnIdleOne() {
        let h = PoolHarness {
            $0.maxConnections = 3
            $0.minConnections = 2
        }
        h.push(1...1)
        #expect(h.connects == [0, 1])
        h.opened(0)
        h.opened(1)
        h.closed(1)
        #expect(h.connects == [0, 1, 1], "kept open: reconnected though it has nothing to send")
        #expect(h.milestones.contains("disconnected(1)"))
    }

    @Test func anAttemptAbandonedAtTheConnectTimeoutIsIgnoredWhenItAnswersLate() {
        let h = PoolHarness()
        h.push(1...1)
        let abandoned = h.attempts[0]!
        h.advance(10)
        let counted = ["socketError(connectTimeout)", "connectAttemptFailed(connectTimeout, 1s)"]
        #expect(h.milestones == counted, "the session counts it failed at once")
        let adopted = h.pool.socketOpened(slot: 0, attempt: abandoned, now: h.now)
        #expect(!adopted, "the late socket is not adopted")
        h.pool.socketFailed(slot: 0, attempt: abandoned, error: APNError(code: .connectionFailed, message: "late"), now: h.now)
        h.drain()
        #expect(h.milestones == counted, "nor its late failure counted twice")
        h.advance(1)
        #expect(h.connects == [0, 0], "the backoff's new attempt")
        #expect(h.attempts[0] != abandoned)
        h.opened(0)
        #expect(h.write(0) == [1])
    }

    @Test func aCloseTheSessionAsksForNeedsNoAnswerAndReconnectsWhenWorkRemains() {
        let h = PoolHarness()
        h.push(1...3)
        h.opened(0)
        h.write(0)
        h.respond(0, .invalidToken, 2)
        #expect(h.closes == [0], "the driver only closes the socket")
        #expect(h.outcome(1) == accepted(.laterIdentifier))
        #expect(h.outcome(2) == .rejected(.invalidToken))
        #expect(h.connects == [0, 0], "3 is resent on a new connection")
        h.opened(0)
        #expect(h.write(0) == [3])
    }

    @Test func aSocketIsWatchedWhileItsSessionAwaitsAcknowledgementsAndBarriersWakeOnceNoneDoes() {
        let h = PoolHarness()
        h.push(1...1)
        h.opened(0)
        #expect(h.watched.isEmpty)
        h.write(0)
        #expect(h.watched == [0])
        let barrier = h.acknowledgementBarrier()
        #expect(h.woken.isEmpty)
        h.acknowledge(0)
        #expect(h.watched.isEmpty)
        #expect(h.woken == [barrier])
    }

    @Test func writeIsAskedOnlyWhenTheOutboundBufferFills() {
        let h = PoolHarness { $0.session.writeBatchBytes = 1 }
        h.push(1...3)
        h.opened(0)
        #expect(h.writable == [0])
        #expect(h.write(0) == [1], "one frame a batch")
        #expect(h.writable == [0], "taken whole: the next frame asked for again")
        h.respond(0, .invalidToken, 1)
        #expect(h.writable.isEmpty, "closed: nothing to write until connected again")
    }

    @Test func cacheFullIsReportedOncePerConnectionWhicheverSocketFillsFirst() {
        let h = PoolHarness {
            $0.maxConnections = 2
            $0.session.cacheMemoryLimit = 1
            $0.session.writeBatchBytes = 1
        }
        h.push(1...4)
        h.opened(0)
        h.opened(1)
        h.write(0)
        h.write(1)
        #expect(h.events.filter { $0.hasPrefix("cacheFull") }.count == 1)
    }

    @Test func completedWaitsForEverySocket() {
        let h = PoolHarness { $0.maxConnections = 2 }
        h.push(1...2)
        h.opened(0)
        h.opened(1)
        h.write(0)
        #expect(!h.events.contains("completed"), "2 is not written yet")
        h.write(1)
        #expect(h.events.filter { $0 == "completed" }.count == 1)
    }
}
