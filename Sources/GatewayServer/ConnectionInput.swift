import APNWire

/// What one gateway connection has read and not yet judged — the decoder's buffer and,
/// under ``MockGateway/Faults/latency``, the bytes still on their way — and the reading
/// that fills them.
struct ConnectionInput {
    var decoder: GatewayDecoder
    /// Bytes read but not yet due under the latency.
    var line = DelayLine(limit: MockGateway.Faults.latencyBufferLimit)
    /// Whether the client has finished sending (it closed, or the connection failed):
    /// nothing more will be read.
    private(set) var peerFinished = false
    /// One read's worth; allocated once per connection, never per read.
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(limits: GatewayDecoder.Limits) {
        decoder = GatewayDecoder(limits: limits)
    }

    /// Reads once (waiting until `deadline`, or as long as it takes) and feeds the bytes
    /// to the decoder.
    mutating func readIntoDecoder(_ driver: ConnectionDriver, until deadline: ContinuousClock.Instant? = nil)
        -> ConnectionDriver.ReadResult
    {
        let result = read(driver, until: deadline)
        if case .bytes(let count) = result {
            buffer.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return result
    }

    /// Reads once (waiting until `deadline`, or as long as it takes) and holds the bytes in
    /// the delay line, stamped with their arrival.
    mutating func readIntoLine(_ driver: ConnectionDriver, until deadline: ContinuousClock.Instant?)
        -> ConnectionDriver.ReadResult
    {
        let result = read(driver, until: deadline)
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

    /// Reads once; `.ended` without reading once the gateway is stopping, so that a client
    /// that keeps sending cannot keep a connection reading (and recording) past a stop.
    private mutating func read(_ driver: ConnectionDriver, until deadline: ContinuousClock.Instant?)
        -> ConnectionDriver.ReadResult
    {
        if driver.shared.isStopping { return .ended }
        let result = buffer.withUnsafeMutableBytes { driver.read(into: $0, until: deadline) }
        if case .ended = result, !driver.shared.isStopping { peerFinished = true }
        return result
    }
}
