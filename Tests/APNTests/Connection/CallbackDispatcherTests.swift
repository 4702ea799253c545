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
