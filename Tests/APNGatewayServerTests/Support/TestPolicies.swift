import APNSupport
import APNTLS
import APNWire
import APNGatewayServer
import Synchronization

/// Takes every notification, noting its identifier, and refuses `refusing` (status 8) with
/// an error response at once, as a gateway with nothing to wait for does.
struct AcceptingPolicy: BinaryGatewayPolicy {
    let seen: Seen
    var refusing: UInt32?

    func open(peer: TLSCertificate?) -> Handler? {
        seen.update { $0.peers.append(peer?.subjectUserID) }
        return Handler(seen: seen, refusing: refusing)
    }

    struct Handler: BinaryConnectionHandler {
        let seen: Seen
        let refusing: UInt32?

        mutating func consume(_ decoder: inout GatewayDecoder, now: ContinuousClock.Instant) -> ReadDirective {
            while true {
                var identifier: UInt32?
                switch decoder.next({ identifier = $0.identifier }) {
                case nil: return .read
                case .notification:
                    guard let identifier else { continue }
                    seen.update { $0.identifiers.append(identifier) }
                    if identifier == refusing {
                        return .end(.errorResponse(ErrorReply(status: .invalidToken, identifier: identifier)))
                    }
                case .rejected(let rejection):
                    return .end(.errorResponse(ErrorReply(status: rejection.status, identifier: rejection.identifier ?? 0)))
                case .unknownCommand:
                    return .end(.close)
                }
            }
        }

        mutating func inputEnded(now: ContinuousClock.Instant) -> ReadDirective {
            seen.update { $0.inputEnded += 1 }
            return .read
        }

        mutating func closed() {
            seen.update { $0.closed += 1 }
        }
    }
}

/// Decides later, on another thread, as the bridge does: takes the notifications, then
/// waits (paused, or still reading) until the test puts an answer in ``Seen/State/answer``
/// and raises the connection's waker, and answers with it.
struct LaterPolicy: BinaryGatewayPolicy {
    let seen: Seen
    /// Pause after the notifications (backpressure) rather than read on.
    let pauses: Bool
    /// Where the test finds the waker of the connection opened last.
    let wakers: WakerBox

    func open(peer: TLSCertificate?) -> Handler? {
        guard let waker = try? WakeSignal() else { return nil }
        wakers.set(waker)
        return Handler(seen: seen, pauses: pauses, waker: waker)
    }

    struct Handler: BinaryConnectionHandler {
        let seen: Seen
        let pauses: Bool
        let waker: ConnectionWaker?

        mutating func consume(_ decoder: inout GatewayDecoder, now: ContinuousClock.Instant) -> ReadDirective {
            while true {
                var identifier: UInt32?
                guard case .notification = decoder.next({ identifier = $0.identifier }) else { break }
                if let identifier { seen.update { $0.identifiers.append(identifier) } }
            }
            if let answer = seen.current.answer {
                let status = StatusCode(wire: answer.status)
                return .end(.errorResponse(ErrorReply(status: status, identifier: answer.identifier)))
            }
            return pauses ? .pause(until: nil) : .read
        }

        mutating func inputEnded(now: ContinuousClock.Instant) -> ReadDirective {
            seen.update { $0.inputEnded += 1 }
            // The client finished: wait for the answers all the same.
            return .pause(until: nil)
        }

        mutating func closed() {
            seen.update { $0.closed += 1 }
        }
    }
}

/// The waker of the last connection a ``LaterPolicy`` opened.
final class WakerBox: Sendable {
    private let waker = Mutex<WakeSignal?>(nil)

    func set(_ signal: WakeSignal) { waker.withLock { $0 = signal } }
    var current: WakeSignal? { waker.withLock { $0 } }
}

/// Serves `bytes` to every client and notes how each visit was settled.
struct FixedFeedback: FeedbackSource {
    let seen: Seen
    let bytes: [UInt8]?

    func take(for peer: TLSCertificate?) -> (batch: FeedbackBatch, receipt: Int)? {
        bytes.map { (FeedbackBatch(bytes: $0), $0.count) }
    }

    func settle(_ receipt: Int, served: Bool) {
        seen.update { $0.settled.append(served) }
    }
}
