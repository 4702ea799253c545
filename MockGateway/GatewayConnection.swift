import APNTLS
import APNWire

/// The settings every connection thread needs, copied out of the configuration.
struct ConnectionSettings: Sendable {
    var limits: GatewayDecoder.Limits
    var handshakeTimeout: Duration
    var lingerTimeout: Duration
}

/// One gateway connection, run start to finish on its own thread: handshake, then read →
/// decode → judge each notification (all those one read brought under one lock) until the client leaves or the gateway ends it.
struct GatewayConnection {
    let driver: ConnectionDriver
    let settings: ConnectionSettings

    private var shared: SharedState { driver.shared }

    func run() {
        guard driver.handshake(deadline: .now + settings.handshakeTimeout) else {
            if !shared.isStopping { shared.update { $0.handshakeFailureCount += 1 } }
            driver.connection.close()
            return
        }
        // A bulk reader: take what the socket holds in one system call rather than a
        // record header, then its body.
        driver.connection.setReadAhead(true)
        let number = shared.update { $0.openConnection() }
        guard let end = serve(connection: number) else {
            driver.connection.close()
            return
        }
        conclude(end)
    }

    /// Reads and judges until the connection must end (`nil` when the client left or the
    /// gateway is stopping: nothing to say then).
    private func serve(connection number: Int) -> ConnectionEnd? {
        var decoder = GatewayDecoder(limits: settings.limits)
        var ordinal = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let result = buffer.withUnsafeMutableBytes { driver.read(into: $0) }
            guard case .bytes(let count) = result else { return nil }
            buffer.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            judging: while true {
                let verdict = shared.update {
                    $0.judgeDecoded(from: &decoder, connection: number, ordinal: &ordinal)
                }
                switch verdict {
                case .goOn:
                    break judging
                case .stall(let duration):
                    // Stalled reads: neither the socket nor the decoder is read meanwhile.
                    guard shared.pause(until: .now + duration) else { return nil }
                case .end(let end):
                    return end
                }
            }
        }
    }

    /// Ends the connection as decided; nothing more is read into the decoder.
    private func conclude(_ end: ConnectionEnd) {
        switch end {
        case .errorResponse(let reply):
            if reply.delay > .zero, !shared.pause(until: .now + reply.delay) {
                driver.connection.close()
                return
            }
            let deadline = ContinuousClock.now + .seconds(5)
            let parts = reply.split ? [reply.bytes[..<2], reply.bytes[2...]] : [reply.bytes[...]]
            for part in parts where !driver.writeAll(part, deadline: deadline) {
                driver.connection.close()
                return
            }
            driver.finish(closeNotify: true, linger: settings.lingerTimeout)
        case .close:
            driver.finish(closeNotify: false, linger: settings.lingerTimeout)
        case .reset:
            driver.reset()
        }
    }
}
