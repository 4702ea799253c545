import APNTLS

// The socket side of the driver: writing what the pool's sessions encoded, reading what
// the gateway sent, and telling the pool what each socket did. Nothing here performs the
// pool's actions: they wait for the named point after ``PollDriven/serviceSockets()`` (or
// after the timers), so no action runs in the middle of a read or a write. What the driver
// must know sooner — whether the pool still holds a socket open, whether a session has more
// to write — it asks the pool (``ConnectionPool/isConnected(slot:)``,
// ``ConnectionPool/hasOutboundBytes(slot:)``), which answers from its state.
extension ConnectionLoop {
    /// Writes and reads until the socket would block. Reads are tried every few writes
    /// whether or not `poll()` said so: while writes keep succeeding the loop never polls,
    /// and an error response left unread would be lost when the gateway closes.
    mutating func service(_ slot: Int) {
        var progress = true
        while progress, let tls = sockets[slot].tls, pool.isConnected(slot: slot) {
            progress = false
            if !sockets[slot].writeBlocked, sockets[slot].hasOutbound {
                progress = write(slot, tls)
                sockets[slot].writesSinceRead += 1
            }
            // Every 8th write (128 KiB of records) is enough to find an error response
            // promptly; reading after each would cost a system call per TLS record.
            guard sockets[slot].tls != nil, pool.isConnected(slot: slot),
                  !progress || sockets[slot].readReady || sockets[slot].writesSinceRead >= Self.writesPerRead
            else { continue }
            sockets[slot].writesSinceRead = 0
            progress = read(slot, tls) || progress
        }
    }

    /// How many writes may go by without trying a read.
    static var writesPerRead: Int { 8 }

    /// One write of what the slot's session has encoded; whether anything was written.
    private mutating func write(_ slot: Int, _ tls: TLSConnection) -> Bool {
        var offered = 0
        let step = pool.withOutboundBytes(slot) { bytes in
            offered = bytes.count
            return bytes.isEmpty ? nil : tls.write(bytes)
        }
        switch step {
        case nil:
            sockets[slot].hasOutbound = false
            return false
        case .done(let count)?:
            now = clock.now()
            sockets[slot].acknowledgements.wrote(count, ciphertextTotal: tls.bytesSentToSocket)
            pool.bytesWritten(slot: slot, count: count, now: now)
            // Asked, not waited for as a `write` action: taking these bytes may have let the
            // session encode more (a paced window opened, cache room freed).
            if count == offered { sockets[slot].hasOutbound = pool.hasOutboundBytes(slot: slot) }
            if sockets[slot].acknowledgements.wantsRefresh, pool.isConnected(slot: slot) { reportAcknowledgements(slot, tls) }
            return true
        case .wantWrite?, .wantRead?:
            sockets[slot].writeBlocked = true
            return false
        case .closed(let clean)?:
            writeFailed(slot, tls, APNError.socketEnded(clean: clean))
            return true
        case .failed(let error)?:
            writeFailed(slot, tls, APNError.socketFailed(error))
            return true
        }
    }

    /// A write failed (typically EPIPE: the gateway closed after an error response). The
    /// error response may still wait in the receive buffer: read it first, so the failure
    /// is attributed rather than taken for a silent close (node-apn's "EPIPE fix").
    private mutating func writeFailed(_ slot: Int, _ tls: TLSConnection, _ error: APNError?) {
        _ = read(slot, tls)
        socketEnded(slot, error: error)
    }

    /// Reads what the gateway sent (an error response, or the end); whether anything
    /// happened.
    private mutating func read(_ slot: Int, _ tls: TLSConnection) -> Bool {
        var happened = false
        // Until the pool lets the socket go (an error response read: it closes it, and what
        // follows on the socket is not the session's any more).
        while sockets[slot].tls != nil, pool.isConnected(slot: slot) {
            let step = readBuffer.withUnsafeMutableBytes { tls.read(into: $0) }
            switch step {
            case .done(let count):
                happened = true
                now = clock.now()
                pool.bytesReceived(slot: slot, Array(readBuffer[..<count]), now: now)
            case .wantRead, .wantWrite:
                sockets[slot].readReady = false
                return happened
            case .closed(let clean):
                socketEnded(slot, error: APNError.socketEnded(clean: clean))
                return true
            case .failed(let error):
                socketEnded(slot, error: APNError.socketFailed(error))
                return true
            }
        }
        return happened
    }

    /// Tells the pool how much of what the slot's session wrote the peer's TCP has
    /// acknowledged (what the socket carried, less what its send queue still holds).
    mutating func reportAcknowledgements(_ slot: Int, _ tls: TLSConnection) {
        var plaintext = sockets[slot].acknowledgements.plaintextAcknowledged
        if let unacknowledged = tls.unacknowledgedByteCount() {
            let carried = tls.bytesSentToSocket
            let acknowledged = carried - min(carried, UInt64(unacknowledged))
            plaintext = sockets[slot].acknowledgements.acknowledge(ciphertext: acknowledged)
        }
        // Reported even when the socket could not be asked (no progress then), so a peer
        // that never acknowledges is still given up as stalled.
        pool.acknowledged(slot: slot, bytes: plaintext, now: now)
    }

    /// The gateway ended the connection (or it broke).
    private mutating func socketEnded(_ slot: Int, error: APNError?) {
        guard let tls = sockets[slot].tls, pool.isConnected(slot: slot) else { return }
        // Before the socket goes: the session must know what the peer acknowledged. That
        // may settle the rest and close the socket itself (idle, or shutting down): then
        // its `close` action, at the turn's next named point, closes it.
        now = clock.now()
        reportAcknowledgements(slot, tls)
        guard pool.isConnected(slot: slot) else { return }
        tls.close()
        sockets[slot].detach()
        now = clock.now()
        pool.socketClosed(slot: slot, error: error, now: now)
    }

    /// The pool ends the connection: close_notify (best effort, never waited for), then
    /// close; or a TCP reset, for a connection given up (`reset`,
    /// ``SessionAction/close(reset:)``) or one whose socket still holds bytes the gateway
    /// has not acknowledged (after an error response: notifications the session resends on
    /// a new connection). A gateway that holds back its reads, or reads on after a refusal
    /// (`apn bridge`), then sees the end at once rather than after taking those bytes — it
    /// would forward them beside the resends (#40).
    mutating func closeSocket(_ slot: Int, reset: Bool = false) {
        if let tls = sockets[slot].tls {
            if reset || (tls.unacknowledgedByteCount() ?? 0) > 0 {
                tls.reset()
            } else {
                _ = tls.shutdown()
                tls.close()
            }
        }
        sockets[slot].detach()
    }
}
