import APNTLS

/// One feedback connection, run on its own thread: handshake, write every queued tuple
/// (in chunks when ``MockGateway/Faults/feedbackWriteSize`` says so), close cleanly.
/// What was taken for it is gone from the queue, as Apple's feedback service forgot what
/// it had served.
struct FeedbackConnection {
    let driver: ConnectionDriver
    let settings: ConnectionSettings

    func run() {
        guard driver.handshake(deadline: .now + settings.handshakeTimeout) else { return }
        let batch = driver.shared.update { $0.takeFeedback() }
        let paced = batch.pause > .zero
        var deadline = ContinuousClock.now + .seconds(10)
        var start = 0
        while start < batch.bytes.count {
            if paced {
                // Pacing (a fault), not synchronisation: the slow service being simulated.
                // A condition wait that a stop ends at once.
                if start > 0, !driver.shared.pause(until: .now + batch.pause) {
                    driver.connection.close()
                    return
                }
                deadline = .now + .seconds(10)
            }
            let end = min(batch.bytes.count, start + max(1, batch.writeSize ?? batch.bytes.count))
            guard driver.writeAll(batch.bytes[start..<end], deadline: deadline) else {
                driver.connection.close()
                return
            }
            start = end
        }
        driver.finish(closeNotify: true, linger: settings.lingerTimeout)
    }
}
