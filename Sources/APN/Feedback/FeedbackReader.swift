import APNTLS
import APNWire

/// One visit to the feedback service: connect, read the (time, token) tuples until the
/// service closes, decoding them across reads. Blocking, on the caller's thread; every
/// wait is a `poll()` of at most 100 ms so a cancel is noticed promptly.
struct FeedbackReader {
    let options: Feedback.Options
    let context: ClientContextCache
    let isCancelled: @Sendable () -> Bool

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

    private static let slice: Duration = .milliseconds(100)
    /// The TCP connect's bound when `connectTimeout` is off: longer than the system's own.
    private static let systemConnectBound: Duration = .seconds(600)

    private enum Handshake {
        case done
        case cancelled
        case failed(TLSError)
    }

    /// The TLS handshake, in slices so a cancel is noticed; `deadline` nil: no limit.
    private func handshake(_ connection: TLSConnection, deadline: ContinuousClock.Instant?) -> Handshake {
        while true {
            let step = connection.handshake()
            let readiness: Readiness
            switch step {
            case .done: return .done
            case .wantRead: readiness = .readable
            case .wantWrite: readiness = .writable
            case .closed(let clean):
                return .failed(TLSError(
                    .handshake, "\(connection.peerDescription) closed the connection during the handshake (\(clean ? "close_notify" : "EOF"))"))
            case .failed(let error): return .failed(error)
            }
            if isCancelled() { return .cancelled }
            let now = ContinuousClock.now
            if let deadline, now >= deadline {
                return .failed(TLSError(.timeout, "TLS handshake with \(connection.peerDescription): deadline passed"))
            }
            do throws(TLSError) {
                _ = try connection.waitUntil(readiness, deadline: min(now + Self.slice, deadline ?? .now + Self.slice))
            } catch {
                return .failed(error)
            }
        }
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
        let connection: TLSConnection
        // A zero connectTimeout is node-apn's "off": the system's TCP timeout still bounds
        // the TCP connect, and a cancel ends the handshake.
        let connectTimeout = Duration?(options.connectTimeout).turnedOffIfZero
        do throws(TLSError) {
            connection = try TLSConnection.connect(
                host: options.host, port: options.port, context: tlsContext,
                timeout: connectTimeout ?? Self.systemConnectBound)
        } catch {
            return .failed(APNError.connectFailure(error))
        }
        defer { connection.close() }
        switch handshake(connection, deadline: connectTimeout.map { .now + $0 }) {
        case .done: break
        case .cancelled: return .cancelled
        case .failed(let error): return .failed(APNError.connectFailure(error))
        }
        var decoder = FeedbackDecoder(maxTokenLength: options.maxTokenLength)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var lastData = ContinuousClock.now
        while true {
            let step = buffer.withUnsafeMutableBytes { connection.read(into: $0) }
            switch step {
            case .done(let count):
                lastData = .now
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
                if options.readTimeout > .zero, ContinuousClock.now - lastData > options.readTimeout {
                    return .failed(APNError(code: .connectionFailed, message: "the feedback service sent nothing for \(options.readTimeout)"))
                }
                let readiness: Readiness = step.isWantRead ? .readable : .writable
                do throws(TLSError) {
                    _ = try connection.waitUntil(readiness, deadline: .now + Self.slice)
                } catch {
                    return .failed(APNError.socketFailed(error))
                }
            case .closed:
                // Clean or not, the service is done: a partial tuple is discarded, as
                // node-apn did, and only logged.
                let leftover = decoder.finish()
                if leftover > 0 {
                    options.debugLog?("feedback: discarded \(leftover) bytes of a partial tuple at close")
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
