import APNSupport
import APN
import APNTLS
import APNWire
import Dispatch
import Foundation
import Synchronization

/// What a feedback poller reported, with bounded waits.
final class FeedbackLog: Sendable {
    private struct State {
        var batches: [[UInt32]] = []
        var errors: [APNError] = []
        var fatal: [APNError] = []
        var called: [[UInt32]] = []
        var calledEach: [Feedback.Entry] = []
        var trace: [String] = []
    }

    private let state = Lock(State())
    private let condition = NSCondition()

    /// The entries of each `feedback` event, as UNIX times.
    var batches: [[UInt32]] { state.withLock { $0.batches } }
    var errors: [APNError] { state.withLock { $0.errors } }
    var fatal: [APNError] { state.withLock { $0.fatal } }
    /// What the `feedback` option's `.batch` closure was called with.
    var called: [[UInt32]] { state.withLock { $0.called } }
    /// What the `feedback` option's `.each` closure was called with, one entry a call.
    var calledEach: [Feedback.Entry] { state.withLock { $0.calledEach } }
    /// Events and option calls in the order they came: `event 1,2`, `batch 1,2`, `each 1`.
    var trace: [String] { state.withLock { $0.trace } }

    var listener: @Sendable (FeedbackEvent) -> Void {
        { [self] event in
            record { state in
                switch event {
                case .feedback(let entries):
                    state.batches.append(entries.map(\.unixTime))
                    state.trace.append("event " + entries.map { String($0.unixTime) }.joined(separator: ","))
                case .feedbackError(let error): state.errors.append(error)
                case .error(let error): state.fatal.append(error)
                }
            }
        }
    }

    /// For `Feedback.Options.feedback`, node-apn's batched form.
    var batchCallback: Feedback.Callback {
        .batch { [self] entries in
            record { state in
                state.called.append(entries.map(\.unixTime))
                state.trace.append("batch " + entries.map { String($0.unixTime) }.joined(separator: ","))
            }
        }
    }

    /// For `Feedback.Options.feedback`, node-apn's `(time, device)` form.
    var eachCallback: Feedback.Callback {
        .each { [self] time, device in
            let entry = Feedback.Entry(unixTime: UInt32(time.timeIntervalSince1970), device: device)
            record { state in
                state.calledEach.append(entry)
                state.trace.append("each \(entry.unixTime)")
            }
        }
    }

    private func record(_ change: (inout State) -> Void) {
        state.withLock { change(&$0) }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    @discardableResult
    func wait(seconds: Double = 20, until predicate: (FeedbackLog) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(self) {
            if !condition.wait(until: deadline) { return predicate(self) }
        }
        return true
    }
}

/// A one-connection TLS server that sends given bytes and closes cleanly: for what
/// MockGateway never sends (partial tuples, oversized token lengths).
final class RawTLSServer: Sendable {
    let identity: Identity
    let port: UInt16

    init(sending bytes: [UInt8]) throws {
        identity = try Identity()
        let listener = try TLSListener(context: identity.serverContext)
        port = listener.port
        let handoff = Handoff(listener)
        Thread.detachNewThread {
            let listener = handoff.take()
            guard let connection = try? listener.accept(deadline: .now + .seconds(20)) else { return }
            try? connection.handshake(deadline: .now + .seconds(10))
            try? connection.writeAll(bytes, deadline: .now + .seconds(10))
            _ = connection.shutdown()
            connection.close()
        }
    }

    func options(_ configure: (inout Feedback.Options) -> Void) -> Feedback.Options {
        var options = identity.options(port: port)
        configure(&options)
        return options
    }

    /// A CA, a server context it signed, and a client certificate it accepts.
    struct Identity: Sendable {
        let authority: CertificateAuthority
        let client: IssuedCertificate
        let serverContext: TLSServerContext

        init() throws {
            authority = try CertificateAuthority()
            client = try authority.issueClientCertificate(topic: "com.example.tests")
            serverContext = try TLSServerContext(
                credentials: try authority.issueServerCertificate().credentials(),
                clientCertificateAuthorities: [authority.certificate])
        }

        func options(port: UInt16) -> Feedback.Options {
            var options = Feedback.Options()
            options.address = "127.0.0.1"
            options.port = port
            options.cert = .data(Array(try! client.certificate.pem().utf8))
            options.key = .data(Array(try! client.privateKey.pem().utf8))
            options.ca = [.data(Array(try! authority.certificate.pem().utf8))]
            options.interval = nil  // no visit of the poller's own at creation unless a test sets one
            return options
        }
    }
}

/// The feedback service's bytes for `entries`: one tuple each, in order.
func feedbackTuples(_ entries: (time: UInt32, token: [UInt8])...) -> [UInt8] {
    var bytes = WireBuffer()
    for entry in entries { bytes.writeFeedbackTuple(time: entry.time, token: entry.token) }
    return bytes.readableBytesArray
}

/// Creates a poller whose deliveries wait, on a suspended callback queue, until `prepare`
/// has added its listeners and sequences: polling starts at creation.
func heldFeedback(_ options: Feedback.Options, _ prepare: (Feedback) -> Void) -> (Feedback, DispatchQueue) {
    let queue = DispatchQueue(label: "feedback-tests.callbacks")
    var options = options
    options.callbackQueue = queue
    queue.suspend()
    let feedback = Feedback(options: options)
    prepare(feedback)
    queue.resume()
    return (feedback, queue)
}

/// A TLS server that accepts any number of connections, sends the first one `bytes` and
/// later ones nothing, and holds each open until ``release()``: a visit kept in progress.
/// Call ``stop()`` when done: the accepting thread runs until then.
final class HeldTLSServer: Sendable {
    let raw: RawTLSServer.Identity
    let port: UInt16
    private let state = Lock((connections: 0, released: false, stopped: false))
    private let condition = NSCondition()

    init(sending bytes: [UInt8]) throws {
        raw = try RawTLSServer.Identity()
        let listener = try TLSListener(context: raw.serverContext)
        port = listener.port
        let handoff = Handoff(listener)
        Thread.detachNewThread { [self] in
            let listener = handoff.take()
            while !state.withLock({ $0.stopped }) {
                guard let connection = try? listener.accept(deadline: .now + .milliseconds(100)) else { continue }
                let first = state.withLock { state in
                    state.connections += 1
                    return state.connections == 1
                }
                signal()
                let served = Handoff(connection)
                Thread.detachNewThread { [self] in serve(served.take(), first ? bytes : []) }
            }
        }
    }

    var connectionCount: Int { state.withLock { $0.connections } }

    /// Lets every held connection (and every later one) close.
    func release() {
        state.withLock { $0.released = true }
        signal()
    }

    /// Stops accepting; connections still held are released.
    func stop() {
        state.withLock { $0.stopped = true; $0.released = true }
        signal()
    }

    /// Waits (at most 20 s) until `count` connections have been accepted.
    func waitForConnections(_ count: Int) -> Bool {
        wait { $0.connections >= count }
    }

    func options(_ configure: (inout Feedback.Options) -> Void) -> Feedback.Options {
        var options = raw.options(port: port)
        configure(&options)
        return options
    }

    private func serve(_ connection: TLSConnection, _ bytes: [UInt8]) {
        try? connection.handshake(deadline: .now + .seconds(10))
        try? connection.writeAll(bytes, deadline: .now + .seconds(10))
        _ = wait { $0.released }
        _ = connection.shutdown()
        connection.close()
    }

    private func signal() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    private func wait(_ predicate: ((connections: Int, released: Bool, stopped: Bool)) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 20)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(state.withLock { $0 }) {
            if !condition.wait(until: deadline) { return predicate(state.withLock { $0 }) }
        }
        return true
    }
}
