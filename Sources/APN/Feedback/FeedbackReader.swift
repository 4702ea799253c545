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

    /// Reads one connection's tuples, handing each entry to `onEntry` as it is decoded.
    func read(onEntry: (Feedback.Entry) -> Void) -> End {
        let tlsContext: TLSClientContext
        switch context.load() {
        case .success(let loaded): tlsContext = loaded
        case .failure(let error): return .credentialsFailed(error)
        }
        let connection: TLSConnection
        do throws(TLSError) {
            connection = try TLSConnection.connect(
                host: options.host, port: options.port, context: tlsContext, timeout: options.connectTimeout)
            try connection.handshake(deadline: .now + options.connectTimeout)
        } catch {
            return .failed(APNError.connectFailure(error))
        }
        defer { connection.close() }
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
                        onEntry(Feedback.Entry(unixTime: tuple.time, device: Device(unvalidated: tuple.token)))
                    }
                } catch {
                    return .failed(APNError.malformedResponse(error))
                }
            case .wantRead, .wantWrite:
                if isCancelled() { return .cancelled }
                if ContinuousClock.now - lastData > options.readTimeout {
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
