extension TLSConnection {
    /// Reads what is available into `buffer`, waiting with `poll()` until `deadline` when
    /// nothing is.
    package func read(into buffer: UnsafeMutableRawBufferPointer, deadline: ContinuousClock.Instant) -> TLSReadResult {
        read(into: buffer) { readiness throws(TLSError) in try waitUntil(readiness, deadline: deadline) }
    }

    /// Reads what is available into `buffer`, calling `wait` whenever the socket must
    /// become ready first: `wait` returns `false` to give up (``TLSReadResult/timedOut``),
    /// which lets a caller wait in its own way, e.g. also watching for a stop.
    package func read(
        into buffer: UnsafeMutableRawBufferPointer, waiting wait: (Readiness) throws(TLSError) -> Bool
    ) -> TLSReadResult {
        while true {
            let readiness: Readiness
            switch read(into: buffer) {
            case .done(let count): return .bytes(count)
            case .wantRead: readiness = .readable
            case .wantWrite: readiness = .writable
            case .closed(let clean): return .closed(clean: clean)
            case .failed(let error): return .failed(error)
            }
            do {
                guard try wait(readiness) else { return .timedOut }
            } catch {
                return .failed(error)
            }
        }
    }

    /// Writes every byte, waiting with `poll()` when the socket is full.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/timeout`` when `deadline` passes first,
    ///   ``TLSError/Kind-swift.struct/write`` when the peer closed, or the connection's error.
    package func writeAll(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws(TLSError) {
        let written = try write(bytes) { readiness throws(TLSError) in try waitUntil(readiness, deadline: deadline) }
        guard written == bytes.count else {
            throw TLSError(.timeout, "writing \(bytes.count) bytes to \(peerDescription): \(written) written by the deadline")
        }
    }

    /// Writes every byte of `bytes`, as ``writeAll(_:deadline:)-(UnsafeRawBufferPointer,_)``.
    package func writeAll(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(TLSError) {
        try bytes.withUnsafeBytes { bytes in
            Result { () throws(TLSError) in try writeAll(bytes, deadline: deadline) }
        }.get()
    }

    /// Writes `bytes` as TLS records of whatever size OpenSSL chooses (at most 16 KiB of
    /// data each), calling `wait` whenever the socket must become ready first; stops when
    /// `wait` returns `false`.
    ///
    /// - Returns: How many bytes were written: all of them unless `wait` gave up.
    /// - Throws: ``TLSError/Kind-swift.struct/write`` when the peer closed, or the
    ///   connection's error.
    package func write(
        _ bytes: UnsafeRawBufferPointer, waiting wait: (Readiness) throws(TLSError) -> Bool
    ) throws(TLSError) -> Int {
        var offset = 0
        while offset < bytes.count {
            switch write(UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .done(let count): offset += count
            case .wantRead: guard try wait(.readable) else { return offset }
            case .wantWrite: guard try wait(.writable) else { return offset }
            case .closed(let clean):
                throw TLSError(
                    .write, "\(peerDescription) closed the connection (\(clean ? "close_notify" : "EOF")) after \(offset) of \(bytes.count) bytes")
            case .failed(let error): throw error
            }
        }
        return offset
    }

    /// Ends the sending direction of the TCP connection (`shutdown(2)` with `SHUT_WR`),
    /// after ``shutdown()`` when close_notify is wanted: the peer reads EOF after what was
    /// written, and this side can still read what the peer sends until it closes.
    package func shutdownWrite() {
        socket.shutdownWrite()
    }
}
