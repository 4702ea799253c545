import APNSupport
import APN
import APNTLS
import APNWire
import Foundation
import APNMockGateway
import Synchronization
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Connection: pools and threads", .timeLimit(.minutes(10)), .threadPerTest)
struct ConnectionPoolTests {
    @Test("a pool of 4 sockets delivers 100,000 notifications with rejections, every outcome accounted for")
    func poolOfFour() async throws {
        let total = 100_000
        let rejectedNumbers = Set(stride(from: 7_000, through: total, by: 10_000))
        var faults = MockGateway.Faults()
        for n in rejectedNumbers { faults.rejectToken(device(n).token) }
        let fixture = try GatewayFixture(faults: faults)
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options {
            $0.maxConnections = 4
            $0.fastMode = true
            // Large enough for everything the kernel buffers of a socket can hold, so every
            // rejection is attributed (a smaller cache gives unknown fates: other tests).
            $0.cacheLength = 100_000
            // Acceptance by grace window assumes the gateway reads within it; this mock
            // on 2 cores may lag four sockets' kernel buffers by more than the fixture's
            // 200 ms, so use node-apn's 2.5 s.
            $0.shutdownGraceWindow = .milliseconds(2500)
        })
        log.listen(to: connection)
        let shared = note(0)
        for n in 1...total { connection.push(shared, to: device(n), outcome: log.outcome(n)) }
        let report = await connection.shutdown()
        #expect(log.wait { $0.outcomes.count == total })

        let outcomes = log.outcomes
        #expect(outcomes.count == total && log.duplicateOutcomes.isEmpty, "exactly one outcome each")
        #expect(report.total == total)
        let recorded = fixture.mock.records.map { number(of: $0.token) }
        let recordedSet = Set(recorded)
        #expect(recordedSet.count == recorded.count, "nothing delivered twice")
        let acceptedNotRecorded = outcomes.filter { $0.value.isAccepted && !recordedSet.contains($0.key) }.map(\.key)
        #expect(acceptedNotRecorded.isEmpty, "accepted means delivered: \(acceptedNotRecorded.count) were not")
        let rejected = Set(outcomes.filter { if case .rejected = $0.value { true } else { false } }.map(\.key))
        #expect(rejected == rejectedNumbers)
        #expect(report.accepted == total - rejectedNumbers.count)
        #expect(recordedSet == Set(1...total).subtracting(rejectedNumbers), "nothing lost")
        let most = log.events.compactMap { if case .connected(let open) = $0 { open } else { nil } }.max()
        #expect(most == 4, "filled by writability: four sockets open at once")
        #expect(log.eventNames.contains("completed"))
    }

    @Test("push from 8 threads at once: every notification delivered once, each thread's order kept")
    func concurrentPushes() async throws {
        let fixture = try GatewayFixture()
        let connection = Connection(options: fixture.options { $0.cacheLength = 20_000 })
        let threads = 8
        let each = 2_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let shared = note(thread)
            for i in 0..<each { connection.push(shared, to: device(thread * 100_000 + i)) }
        }
        let report = await connection.shutdown()
        #expect(report.accepted == threads * each)
        let recorded = fixture.mock.records.map { number(of: $0.token) }
        #expect(recorded.count == threads * each)
        for thread in 0..<threads {
            let mine = recorded.filter { $0 / 100_000 == thread }
            #expect(mine == (0..<each).map { thread * 100_000 + $0 }, "thread \(thread) in order")
        }
    }

    @Test("events reach on(_:) listeners and the events stream, which ends at shutdown")
    func eventStream() async throws {
        let fixture = try GatewayFixture()
        let connection = Connection(options: fixture.options())
        let stream = connection.events
        let heard = Lock<[String]>([])
        let id = connection.on { event in heard.withLock { $0.append("\(event)") } }
        connection.push(note(1), to: device(1))
        await connection.shutdown()
        var names: [String] = []
        for await event in stream { names.append("\(event)".prefix { $0 != "(" }.description) }
        #expect(names == ["connected", "transmitted", "completed", "disconnected"])
        connection.removeListener(id)
        #expect(heard.withLock { $0.count } == 4)
    }
}
