@_spi(APNBridge) @testable import APN
import Dispatch
import Foundation
import Synchronization
import Testing

/// The I/O thread's reports reach the callback queue in order, a block per turn — or per
/// ``CallbackDispatcher/sliceLimit`` reports, so a turn that settles a million notifications
/// does not build one array of them all.
@Suite struct CallbackDispatcherTests {
    @Test func aLongTurnIsHandedOverInSlicesAndInOrder() {
        let queue = DispatchQueue(label: "callbacks")
        let seen = Mutex<[Int]>([])
        let gate = DispatchSemaphore(value: 0)
        // The queue is held until the turn is over: what was handed over waits there.
        queue.async { gate.wait() }
        var dispatcher = CallbackDispatcher(
            queue: queue, hub: EventHub(), errorCallback: nil, log: ComponentLog(StandardErrorLogHandler(), label: "test"))
        let count = 2 * CallbackDispatcher.sliceLimit + 10
        for number in 0..<count { dispatcher.call { seen.withLock { $0.append(number) } } }
        gate.signal()
        // Two full slices went before the turn ended; the rest goes with its flush.
        queue.sync {}
        #expect(seen.withLock { $0 } == Array(0..<2 * CallbackDispatcher.sliceLimit))
        dispatcher.flush()
        queue.sync {}
        #expect(seen.withLock { $0 } == Array(0..<count))
    }
}

/// Outcomes are kept in runs (a record's consecutive notifications with the same outcome):
/// each completion is still called once per notification, in the order reported, with
/// other reports in between where they came.
@Suite struct CallbackDispatcherOutcomeRunTests {
    /// What the callback queue saw: `record:index:outcome`, or `call N`.
    private final class Seen: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
    }

    private func record(_ name: String, count: Int, seen: Seen) -> PushRecord {
        let devices = (0..<count).map { try! Device(token: [UInt8](repeating: UInt8($0 % 256), count: 32)) }
        return PushRecord(
            notification: Notification(), devices: devices, delivery: Notification().delivery(),
            completion: { index, outcome in seen.add("\(name):\(index):\(outcome)") })
    }

    private func dispatcher(_ queue: DispatchQueue) -> CallbackDispatcher {
        CallbackDispatcher(
            queue: queue, hub: EventHub(), errorCallback: nil, log: ComponentLog(StandardErrorLogHandler(), label: "test"))
    }

    @Test func runsBreakAtAnotherRecordAGapAnotherOutcomeOrAnotherReport() {
        let queue = DispatchQueue(label: "callbacks")
        let seen = Seen()
        var dispatcher = dispatcher(queue)
        let a = record("a", count: 10, seen: seen)
        let b = record("b", count: 10, seen: seen)
        let flush = NotificationOutcome.accepted(Acceptance(evidence: .flush))
        let grace = NotificationOutcome.accepted(Acceptance(evidence: .graceWindow))
        let refused = NotificationOutcome.rejected(.invalidToken)
        let reported: [(PushRecord?, UInt32, NotificationOutcome)] = [
            (a, 0, flush), (a, 1, flush), (a, 2, flush),  // one run
            (b, 3, flush),  // another record
            (a, 3, flush),  // a's next, after b's
            (a, 5, flush),  // a gap
            (a, 6, grace),  // another outcome
            (nil, 0, flush),  // a call in between
            (a, 7, grace), (a, 8, refused), (a, 9, refused),
        ]
        var expected: [String] = []
        for (record, index, outcome) in reported {
            if let record {
                dispatcher.outcome(record, index: index, outcome)
                expected.append("\(record === a ? "a" : "b"):\(index):\(outcome)")
            } else {
                let number = expected.count
                dispatcher.call { seen.add("call \(number)") }
                expected.append("call \(number)")
            }
        }
        dispatcher.flush()
        queue.sync {}
        #expect(seen.lines.withLock { $0 } == expected)
    }

    @Test func aLongRunIsHandedOverInSlices() {
        let queue = DispatchQueue(label: "callbacks")
        let seen = Seen()
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        var dispatcher = dispatcher(queue)
        let count = 2 * CallbackDispatcher.sliceLimit + 10
        let long = record("r", count: count, seen: seen)
        let flush = NotificationOutcome.accepted(Acceptance(evidence: .flush))
        for index in 0..<count { dispatcher.outcome(long, index: UInt32(index), flush) }
        gate.signal()
        queue.sync {}
        #expect(seen.lines.withLock { $0 } == (0..<2 * CallbackDispatcher.sliceLimit).map { "r:\($0):\(flush)" })
        dispatcher.flush()
        queue.sync {}
        #expect(seen.lines.withLock { $0 } == (0..<count).map { "r:\($0):\(flush)" })
    }

    @Test func aRecordWithoutACompletionHandlerReportsNothing() {
        let queue = DispatchQueue(label: "callbacks")
        var dispatcher = dispatcher(queue)
        let silent = PushRecord(
            notification: Notification(), devices: [try! Device(token: [UInt8](repeating: 1, count: 32))],
            delivery: Notification().delivery())
        let called = Mutex(false)
        dispatcher.outcome(silent, index: 0, .accepted(Acceptance(evidence: .flush)))
        dispatcher.call { called.withLock { $0 = true } }
        dispatcher.flush()
        queue.sync {}
        #expect(called.withLock { $0 })
    }
}
