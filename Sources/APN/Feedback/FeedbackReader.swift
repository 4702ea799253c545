@_spi(APNBridge) import APNCore
import APNSupport
import APNTLS
import APNWire

/// One visit to the feedback service: connect, read the (time, token) tuples until the
/// service closes, decoding them across reads. Blocking, on the caller's thread; every
/// wait is a `poll()` of the socket and ``wake``, which the canceller raises — so a cancel
/// is noticed at once — and a ``ManualClock`` raises on every advance. The connect and
/// read timeouts run on the options' clock.
struct FeedbackReader {
    let options: Feedback.Options
    let context: ClientContextCache
    let isCancelled: @Sendable () -> Bool
    /// Raised after `isCancelled` turns true; reset by this reader only.
    let wake: WakeSignal

    /// How a visit ended.
    enum End {
        /// The service closed after sending what it had.
        case finished
        /// Connecting, reading or decoding failed: try again at the next interval.
        case failed(APNError)
        /// The credentials cannot be used: polling must stop.
        case credentialsFailed(APNError)
        case cancelled
    }

    /// The TCP connect's bound when `connectTimeout` is off: longer than the system's own.
    /// Real time, whatever the clock: no option asks for it; it only ends a wait the kernel
    /// should have ended first.
    private static let systemConnectBound: Duration = .seconds(600)

    private var clock: ConnectionClock { options.clock }

    /// Whether `deadline` (on the options' clock) has passed; never when `nil`.
    private func passed(_ deadline: Timestamp?) -> Bool {
        deadline.map { clock.now() >= $0 } ?? false
    }

    /// What a wait does next: resets the wake signal, then gives up when cancelled, past
    /// `deadline` on the clock or past `bound` in real time; else waits until the first
    /// of them can pass (a cancel raises `wake` and ends the wait sooner).
    private func plan(deadline: Timestamp?, bound: ContinuousClock.Instant? = nil) -> WaitPlan {
        wake.reset()
        if isCancelled() || passed(deadline) { return .giveUp }
        let now = ContinuousClock.now
        if let bound, now >= bound { return .giveUp }
        let candidates = [clock.systemDeadline(for: deadline), bound]
        return .waitUntil(candidates.compactMap { $0 }.min())
    }

    /// Connects and runs the handshake by `deadline` on the clock (`nil`: no limit but the
    /// system's TCP timeout); `nil` when cancelled.
    private func connect(_ tlsContext: TLSClientContext, deadline: Timestamp?) -> Result<TLSConnection, APNError>? {
        let connection: TLSConnection
        do throws(TLSError) {
            let bound = deadline == nil ? ContinuousClock.now + Self.systemConnectBound : nil
            connection = try TLSConnection.connect(
                host: options.host, port: options.port, context: tlsContext,
                orSignal: wake, plan: { plan(deadline: deadline, bound: bound) })
        } catch {
            return connectFailed(error, deadline: deadline)
        }
        do throws(TLSError) {
            try connection.handshake(orSignal: wake, plan: { plan(deadline: deadline) })
        } catch {
            connection.close()
            return connectFailed(error, deadline: deadline)
        }
        return .success(connection)
    }

    /// What a failed connect means: `nil` when cancelled, a timeout when the clock passed
    /// the deadline, else the failure.
    private func connectFailed(_ error: TLSError, deadline: Timestamp?) -> Result<TLSConnection, APNError>? {
        if isCancelled() { return nil }
        if passed(deadline) {
            return .failure(APNError.connectFailure(TLSError(
                .timeout, "connecting to \(options.host):\(options.port): not connected within \(options.connectTimeout)")))
        }
        return .failure(APNError.connectFailure(error))
    }

    /// Reads one connection's tuples, handing each entry to `onEntry` as it is decoded.
    func read(onEntry: (Feedback.Entry) -> Void) -> End {
        read(onEntry: { onEntry($0); return true }, afterRead: { true })
    }

    /// Reads one connection's tuples, handing each entry to `onEntry` as it is decoded and
    /// calling `afterRead` once every entry of a socket read was handed over, before the
    /// next read. Either returning false ends the visit as `.cancelled` at once.
    func read(onEntry: (Feedback.Entry) -> Bool, afterRead: () -> Bool) -> End {
        let tlsContext: TLSClientContext
        switch context.load() {
        case .success(let loaded): tlsContext = loaded
        case .failure(let error): return .credentialsFailed(error)
        }
        if isCancelled() { return .cancelled }  // not even a connect
        let observer = clock.manual?.observe { [wake] in wake.signal() }
        defer { if let observer { clock.manual?.removeObserver(observer) } }
        // A zero connectTimeout is node-apn's "off": the system's TCP timeout still bounds
        // the TCP connect, and a cancel ends the attempt.
        let connectDeadline = Duration?(options.connectTimeout).turnedOffIfZero.map { clock.now() + $0 }
        let connection: TLSConnection
        switch connect(tlsContext, deadline: connectDeadline) {
        case .success(let connected)?: connection = connected
        case .failure(let error)?: return .failed(error)
        case nil: return .cancelled
        }
        defer { connection.close() }
        let readTimeout = Duration?(options.readTimeout).turnedOffIfZero
        var decoder = FeedbackDecoder(maxTokenLength: options.maxTokenLength)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var lastData = clock.now()
        while true {
            let step = buffer.withUnsafeMutableBytes { connection.read(into: $0) }
            switch step {
            case .done(let count):
                lastData = clock.now()
                buffer.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                do throws(WireError) {
                    while let tuple = try decoder.next() {
                        guard onEntry(Feedback.Entry(unixTime: tuple.time, device: Device(unvalidated: tuple.token)))
                        else { return .cancelled }
                    }
                } catch {
                    return .failed(APNError.malformedFeedback(error))
                }
                guard afterRead() else { return .cancelled }
            case .wantRead, .wantWrite:
                if isCancelled() { return .cancelled }
                let deadline = readTimeout.map { lastData + $0 }
                if let readTimeout, passed(deadline) {
                    return .failed(APNError(code: .connectionFailed, message: "the feedback service sent nothing for \(readTimeout)"))
                }
                let readiness: Readiness = step.isWantRead ? .readable : .writable
                guard case .waitUntil(let until) = plan(deadline: deadline) else { continue }
                do throws(TLSError) {
                    // Whatever ended the wait, the next turn reads or finds out why.
                    _ = try connection.waitUntil(readiness, deadline: until, orSignal: wake)
                } catch {
                    return .failed(APNError.socketFailed(error))
                }
            case .closed:
                // Clean or not, the service is done: a partial tuple is discarded, as
                // node-apn did, and only logged.
                let leftover = decoder.finish()
                if leftover > 0 {
                    options.log(.debug, "discarded a partial tuple at close", metadata: ["bytes": "\(leftover)"])
                }
                return .finished
            case .failed(let error):
                return .failed(APNError.socketFailed(error))
            }
        }
    }
}

extension TLSStep {
    var isWantRead: Bool {
        if case .wantRead = self { true } else { false }
    }
}
