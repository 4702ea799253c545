import APNSupport
import APNWire

/// What one binary connection has read and not yet given to its handler — the decoder's
/// buffer and, under a latency (``BinaryConnectionHandler/inputLatency()``), the bytes
/// still on their way — and the reading that fills them.
struct ConnectionInput {
    var decoder: GatewayDecoder
    /// Bytes read but not yet due under the latency.
    var line: DelayLine
    /// Whether the client has finished sending (it closed, the connection failed, or it
    /// was idle too long): nothing more will be read.
    private(set) var peerFinished = false
    /// When the wait for the client that a waker interrupted began: the next read's idle
    /// timeout counts from then, so wake-ups do not make a silent client look active.
    private var idleSince: ContinuousClock.Instant?
    /// One read's worth; allocated once per connection, never per read.
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(limits: GatewayDecoder.Limits, heldByteLimit: Int) {
        decoder = GatewayDecoder(limits: limits)
        line = DelayLine(limit: heldByteLimit)
    }

    /// Reads once (waiting until `deadline`, or as long as it takes, or until `waker`) and
    /// feeds the bytes to the decoder.
    mutating func readIntoDecoder(
        _ driver: ConnectionDriver, until deadline: ContinuousClock.Instant? = nil, waker: WakeSignal? = nil
    ) -> ConnectionDriver.ReadResult {
        let result = read(driver, until: deadline, waker: waker)
        if case .bytes(let count) = result {
            buffer.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return result
    }

    /// Reads once (waiting until `deadline`, or as long as it takes, or until `waker`) and
    /// holds the bytes in the delay line, stamped with their arrival.
    mutating func readIntoLine(
        _ driver: ConnectionDriver, until deadline: ContinuousClock.Instant?, waker: WakeSignal?
    ) -> ConnectionDriver.ReadResult {
        let result = read(driver, until: deadline, waker: waker)
        if case .bytes(let count) = result {
            line.append(buffer[..<count], arrivedAt: .now)
        }
        return result
    }

    /// Decodes and throws away up to `limit` of the notifications held — in the decoder,
    /// then in the delay line whether due or not — and returns how many.
    mutating func discardHeld(limit: Int) -> Int {
        var count = decoder.discard(upTo: limit)
        while count < limit, let bytes = line.popFirst() {
            decoder.feed(bytes)
            count += decoder.discard(upTo: limit - count)
        }
        return count
    }

    /// Forgets an interrupted wait: the connection paused, which is not the client's
    /// idleness.
    mutating func paused() {
        idleSince = nil
    }

    /// Reads once; `.ended` without reading once the server is stopping, so that a client
    /// that keeps sending cannot keep a connection reading past a stop.
    private mutating func read(
        _ driver: ConnectionDriver, until deadline: ContinuousClock.Instant?, waker: WakeSignal?
    ) -> ConnectionDriver.ReadResult {
        if driver.server.isStopping { return .ended }
        // Only a read a waker can interrupt needs to know when its wait began.
        let since = waker == nil ? nil : idleSince ?? .now
        let result = buffer.withUnsafeMutableBytes {
            driver.read(into: $0, until: deadline, idleSince: since, waker: waker)
        }
        if case .woken = result { idleSince = since } else { idleSince = nil }
        if case .ended = result, !driver.server.isStopping { peerFinished = true }
        return result
    }
}
