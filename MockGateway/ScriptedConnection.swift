import APNTLS
import APNWire

/// The settings every connection thread needs, copied out of the configuration.
struct ConnectionSettings: Sendable {
    var limits: GatewayDecoder.Limits
    var handshakeTimeout: Duration
    var lingerTimeout: Duration
}

/// One gateway connection, run start to finish on its own thread: handshake, then read →
/// decode → judge each notification (all those one read brought under one lock) until the
/// client leaves or the gateway ends it. Under ``MockGateway/Faults/latency`` reads go
/// through a ``DelayLine`` first; under ``MockGateway/Faults/readRate`` judging waits for
/// tokens, reading nothing meanwhile.
struct GatewayConnection {
    let driver: ConnectionDriver
    let settings: ConnectionSettings

    var shared: SharedState { driver.shared }

    func run() {
        guard driver.handshake(deadline: .now + settings.handshakeTimeout) else { return }
        // A bulk reader: take what the socket holds in one system call rather than a
        // record header, then its body.
        driver.connection.setReadAhead(true)
        let number = shared.update { $0.openConnection() }
        defer { shared.update { $0.closeConnection() } }
        var input = ConnectionInput(limits: settings.limits)
        guard let end = serve(&input, connection: number) else {
            driver.connection.close()
            return
        }
        switch end {
        case .errorResponse(let reply): answer(reply, input: &input)
        case .close: driver.finish(closeNotify: false, linger: settings.lingerTimeout)
        case .reset: driver.reset()
        }
    }

    /// Reads and judges until the connection must end (`nil` when the client left or the
    /// gateway is stopping: nothing to say then).
    private func serve(_ input: inout ConnectionInput, connection number: Int) -> ConnectionEnd? {
        var ordinal = 0
        var pacer = Pacer()
        // Whether the decoder may hold notifications not judged yet (after a stall, or
        // when the read-rate budget ran out part-way through a read).
        var decodable = false
        while true {
            // Checked before every read, not only when the socket runs empty: a client that
            // keeps sending must not keep the connection (and its recording) going after a stop.
            if shared.isStopping { return nil }
            pacer.refresh(from: shared)
            if !decodable {
                guard refill(&input, latency: pacer.latency) else { return nil }
                // Faults changed during a long read apply to what it brought.
                pacer.refresh(from: shared)
            }
            var limit = Int.max
            if let bucket = pacer.bucket {
                let now = ContinuousClock.now
                limit = bucket.available(at: now)
                guard limit > 0 else {
                    // No budget: neither judge nor read until a token comes, so the
                    // kernel's buffers fill and the client's writes block.
                    guard shared.pause(until: bucket.nextToken(after: now)) else { return nil }
                    decodable = true
                    continue
                }
            }
            let before = ordinal
            let verdict = shared.update {
                $0.judgeDecoded(from: &input.decoder, connection: number, ordinal: &ordinal, limit: limit)
            }
            pacer.spend(ordinal - before)
            switch verdict {
            case .goOn:
                decodable = false
            case .limitReached:
                decodable = true
            case .recordsFull:
                // Neither judge nor read until records are released: TCP's backpressure
                // reaches the client, and memory stays bounded.
                guard shared.waitForRecordRoom() else { return nil }
                decodable = true
            case .stall(let duration):
                // Stalled reads: neither the socket nor the decoder is read meanwhile.
                guard shared.pause(until: .now + duration) else { return nil }
                decodable = true
            case .end(let end):
                return end
            }
        }
    }

    /// Gives the decoder more bytes: straight from a socket read, or — under latency, or
    /// while bytes are still held — the oldest held bytes once due, reading the socket
    /// into the delay line meanwhile. `false` when nothing more will come: the client
    /// finished and nothing is held, or the gateway is stopping.
    private func refill(_ input: inout ConnectionInput, latency: Duration) -> Bool {
        if latency == .zero && input.line.isEmpty {
            guard case .bytes = input.readIntoDecoder(driver) else { return false }
            return true
        }
        while true {
            if let bytes = input.line.popDue(at: .now, latency: latency) {
                input.decoder.feed(bytes)
                return true
            }
            let due = input.line.dueTime(latency: latency)
            if input.line.isFull || input.peerFinished {
                // Read nothing until the oldest bytes fall due: when full, TCP's
                // backpressure reaches the client; when it finished, nothing comes.
                guard let due, shared.pause(until: due) else { return false }
                continue
            }
            if case .ended = input.readIntoLine(driver, until: due), shared.isStopping { return false }
        }
    }
}
