import APNTLS

/// A raw provider-side client for `apn mock-gateway` tests: whole writes and reads to the
/// end, with deadlines instead of sleeps.
extension TLSConnection {
    /// Writes every byte of `bytes`, waiting with a deadline when it would block.
    func sendAll(_ bytes: [UInt8], timeout: Duration = .seconds(5)) throws {
        let deadline = ContinuousClock.now + timeout
        var offset = 0
        while offset < bytes.count {
            let step = bytes.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch step {
            case .done(let count): offset += count
            case .wantRead: _ = try waitUntil(.readable, deadline: deadline)
            case .wantWrite: _ = try waitUntil(.writable, deadline: deadline)
            case .closed(let clean): throw TLSError(.write, "gateway closed (clean: \(clean))")
            case .failed(let error): throw error
            }
            if ContinuousClock.now > deadline { throw TLSError(.timeout, "writing the notification") }
        }
    }

    /// What a client read before the gateway ended the connection.
    struct Ending {
        var bytes: [UInt8] = []
        /// The size of each read (one TLS record at most each).
        var reads: [Int] = []
        /// `nil` when the connection was still open at the deadline.
        var end: TLSStep?
    }

    /// Reads until the gateway closes or fails the connection, or `timeout` passes.
    func readToEnd(timeout: Duration = .seconds(10)) throws -> Ending {
        let deadline = ContinuousClock.now + timeout
        var ending = Ending()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let step = buffer.withUnsafeMutableBytes { read(into: $0) }
            switch step {
            case .done(let count):
                ending.bytes += buffer[..<count]
                ending.reads.append(count)
            case .wantRead: guard try waitUntil(.readable, deadline: deadline) else { return ending }
            case .wantWrite: guard try waitUntil(.writable, deadline: deadline) else { return ending }
            case .closed, .failed:
                ending.end = step
                return ending
            }
        }
    }
}
