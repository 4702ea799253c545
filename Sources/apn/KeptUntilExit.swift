import Synchronization

/// Values a command keeps until the process exits rather than frees: `apn send`'s devices.
/// A million of them, freed one allocation at a time after the summary was printed, held
/// the exit back by some 40 ms (a tenth of the time the million took to send); the exit
/// that follows returns their memory at once.
enum KeptUntilExit {
    private static let kept = Mutex<[any Sendable]>([])

    /// Keeps `value` until the process exits.
    static func keep(_ value: any Sendable) {
        kept.withLock { $0.append(value) }
    }
}
