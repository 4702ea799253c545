import APNTLS

/// One feedback connection, run on its own thread: handshake, take the batch from the
/// source, write it (in chunks when the batch says so), settle it, close cleanly.
struct FeedbackConnection<Source: FeedbackSource> {
    let driver: ConnectionDriver
    let settings: ConnectionSettings
    let source: Source

    func run() {
        guard driver.handshake(deadline: .now + settings.handshakeTimeout) else { return }
        guard let (batch, receipt) = source.take(for: driver.connection.peerCertificate) else {
            driver.connection.close()
            return
        }
        let served = write(batch)
        source.settle(receipt, served: served)
        guard served else {
            driver.connection.close()
            return
        }
        driver.finish(closeNotify: true, linger: settings.lingerTimeout)
    }

    /// Writes the batch; `false` when a write failed or timed out, or the server stopped.
    private func write(_ batch: FeedbackBatch) -> Bool {
        let paced = batch.pause > .zero
        var deadline = ContinuousClock.now + .seconds(10)
        var start = 0
        while start < batch.bytes.count {
            if paced {
                // Pacing (a fault), not synchronisation: the slow service being simulated.
                // A condition wait that a stop ends at once.
                if start > 0, !driver.server.pause(until: .now + batch.pause) { return false }
                deadline = .now + .seconds(10)
            }
            let end = min(batch.bytes.count, start + max(1, batch.writeSize ?? batch.bytes.count))
            guard driver.writeAll(batch.bytes[start..<end], deadline: deadline) else { return false }
            start = end
        }
        return true
    }
}
