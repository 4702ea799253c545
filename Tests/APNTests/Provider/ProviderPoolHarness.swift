@testable import APN
import APNHTTP2
import APNWire
import Foundation
import Testing

/// Drives a `ProviderPool` by hand for table tests, as ``PoolHarness`` drives the binary
/// pool: request `n` goes to device `n` (32 bytes of `n`), connections are opened, fed and
/// closed by the test, and each has a real HTTP/2 server session (nghttp2, in memory) that
/// reads the pool's frames and answers as the test says. Time moves only by ``advance(_:)``.
/// Every input is followed by the end of a turn and the pool's actions, as the driver does.
/// Completions are recorded by device; a second completion for one device is recorded as a
/// duplicate.
final class ProviderPoolHarness {
    var pool: ProviderPool
    var now = Timestamp.zero
    /// Attempts asked for, in order.
    var connects: [Int] = []
    /// Connections the pool closed, in order, with the bytes it wrote last.
    var closes: [Int] = []
    var lastBytes: [Int: [UInt8]] = [:]
    /// Per open connection: the server's session and what it received.
    var servers: [Int: HTTP2Session] = [:]
    /// Per connection: stream id → device number of each request the server received.
    var requests: [Int: [Int32: Int]] = [:]
    /// Per connection: streams the client reset, as the server saw them.
    var resets: [Int: [(stream: Int32, code: HTTP2ErrorCode)]] = [:]
    /// The server's session configuration for connections opened from now on.
    var serverConfiguration = HTTP2Session.Configuration()
    /// Per connection: the header fields of the last request the server received.
    var lastHeaders: [Int: [HTTP2Header]] = [:]
    /// Connections whose socket refuses our bytes (the server stopped reading).
    var blocked: Set<Int> = []
    /// Connections whose server sends nothing back (hung: no answer, no PING ack).
    var muted: Set<Int> = []
    var responses: [Int: ProviderResponse] = [:]
    var duplicates: [Int] = []
    var events: [String] = []
    var replies = 0
    var finished = false
    var stopped = false

    static func configuration(_ configure: (inout ProviderPool.Configuration) -> Void = { _ in })
        -> ProviderPool.Configuration
    {
        var configuration = ProviderPool.Configuration(
            scheduler: ProviderScheduler.Configuration(
                requestTimeout: .seconds(10), retryLimit: 2, initialBackoff: .milliseconds(100),
                serverErrorBackoff: .seconds(1), maxBackoff: .seconds(4)),
            session: HTTP2Session.Configuration(), maxConnections: 1, maxConcurrentStreams: 1_000,
            connectionRetryLimit: 3, pingInterval: .seconds(60), pingTimeout: .seconds(5))
        configure(&configuration)
        return configuration
    }

    init(_ configure: (inout ProviderPool.Configuration) -> Void = { _ in }) {
        pool = ProviderPool(
            configuration: Self.configuration(configure), authorization: ProviderAuthorization(Provider.Options()))
    }

    // MARK: Inputs

    static func request(_ n: Int) -> ProviderRequest {
        let device = try! Device(token: [UInt8](repeating: UInt8(n), count: 32))
        return try! ProviderRequest(
            PushNotification().setBadge(1), to: device, authority: "api.push.apple.com", defaultTopic: "t",
            requiresTopic: false)
    }

    func send(_ numbers: ClosedRange<Int>, cancellation: ProviderCancellation? = nil) {
        pool.send(
            numbers.map { ProviderSubmission(request: Self.request($0), index: 0) },
            to: ProviderReplyTarget(cancellation: cancellation) { _, _ in })
        turn()
    }

    /// Answers the oldest pending `connect` with a connection; its number.
    @discardableResult
    func connect() -> Int {
        let attempt = connects.last!
        let number = pool.connected(attempt: attempt, peer: "mock:443", now: now)!
        servers[number] = try! HTTP2Session(role: .server, configuration: serverConfiguration)
        requests[number] = [:]
        turn()
        return number
    }

    func failConnect(_ error: ProviderError = .lost("refused")) {
        pool.connectFailed(attempt: connects.last!, error, now: now)
        turn()
    }

    /// Moves bytes both ways on `number` until both sides are quiet (the server's SETTINGS,
    /// the pool's requests, answers already submitted).
    func exchange(_ number: Int) {
        var moved = true
        while moved, let server = servers[number] {
            moved = false
            if !blocked.contains(number) {
                var bytes = WireBuffer()
                while pool.appendOutput(of: number, to: &bytes) > 0 {}
                pool.flushed(number, progressed: !bytes.isEmpty, blocked: false, now: now)
                if !bytes.isEmpty {
                    moved = true
                    try! bytes.withUnsafeReadableBytes { try server.receive($0) }
                    for event in server.takeEvents() { serverSaw(event, on: number) }
                }
            } else if pool.wantsWrite(number) {
                pool.flushed(number, progressed: false, blocked: true, now: now)
            }
            var answers: [UInt8] = []
            while server.appendOutput(to: &answers) > 0 {}
            if !answers.isEmpty && !muted.contains(number) {
                moved = true
                answers.withUnsafeBytes { pool.received($0, on: number, now: now) }
                drain()
            }
            pool.endOfTurn(now: now)
            drain()
        }
    }

    private func serverSaw(_ event: HTTP2Event, on number: Int) {
        if case .streamClosed(let streamID, let code) = event, code != .noError {
            resets[number, default: []].append((streamID, code))
        }
        guard case .request(let streamID, let headers, _) = event else { return }
        let path = headers.first { $0.name == ":path" }!.value
        let byte = UInt8(path.suffix(2), radix: 16)!
        requests[number]![streamID] = Int(byte)
        lastHeaders[number] = Array(headers)
    }

    /// The stream carrying device `n` on `number`.
    func stream(of n: Int, on number: Int) -> Int32 {
        requests[number]!.filter { $0.value == n }.map(\.key).max()!
    }

    /// The server answers device `n`'s request on `number`.
    func answer(_ n: Int, on number: Int, status: Int = 200, body: String = "") {
        try! servers[number]!.submitResponse(
            streamID: stream(of: n, on: number), headers: [HTTP2Header(":status", String(status))],
            body: Array(body.utf8))
        exchange(number)
    }

    func reject(_ n: Int, on number: Int, status: Int, reason: String) {
        answer(n, on: number, status: status, body: "{\"reason\":\"\(reason)\"}")
    }

    func reset(_ n: Int, on number: Int, code: HTTP2ErrorCode) {
        servers[number]!.resetStream(stream(of: n, on: number), errorCode: code)
        exchange(number)
    }

    func goaway(on number: Int, lastStreamID: Int32, code: HTTP2ErrorCode = .noError) {
        try! servers[number]!.submitGoaway(errorCode: code, lastStreamID: lastStreamID)
        exchange(number)
    }

    func limitStreams(on number: Int, to limit: UInt32) {
        try! servers[number]!.advertiseMaxConcurrentStreams(limit)
        exchange(number)
    }

    /// The peer closes the socket (cleanly, or with `failure`).
    func socketEnds(_ number: Int, failure: ProviderError? = nil) {
        pool.socketEnded(number, failure: failure, now: now)
        turn()
    }

    func advance(_ duration: Duration) {
        now = now + duration
        turn()
    }

    /// The end of a turn, the actions, and the pool's output moved to every open server.
    func turn() {
        drain()
        pool.endOfTurn(now: now)
        drain()
        for number in servers.keys.sorted() { exchange(number) }
    }

    func drain() {
        while let action = pool.nextAction() {
            switch action {
            case .connect(let attempt):
                connects.append(attempt)
            case .close(let number, let bytes):
                closes.append(number)
                lastBytes[number] = bytes
                servers[number] = nil
            case .complete:
                let response = pool.completions.removeFirst().response
                let n = Int(response.device.token[0])
                if responses[n] != nil { duplicates.append(n) }
                responses[n] = response
            case .event(let event):
                events.append(Self.name(event))
            case .reply:
                replies += 1
            case .finish(let replies):
                finished = true
                self.replies += replies.count
            case .stop:
                stopped = true
            }
        }
    }

    static func name(_ event: ProviderEvent) -> String {
        switch event {
        case .connected: "connected"
        case .disconnected(_, let error): error == nil ? "disconnected" : "lost"
        case .connectionFailed: "connectionFailed"
        case .connectAttemptFailed(_, let next): next == nil ? "gaveUp" : "retryIn(\(next!))"
        case .goaway: "goaway"
        case .pingAnswered: "pingAnswered"
        case .tokenRenewed: "tokenRenewed"
        case .failed: "failed"
        }
    }

    // MARK: Reading

    /// Devices whose request the server received on `number`, by stream order.
    func received(on number: Int) -> [Int] {
        (requests[number] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
    }

    func code(_ n: Int) -> ProviderError.Code? { responses[n]?.error?.code }
    func delivered(_ n: Int) -> Bool { responses[n]?.isSuccess == true }
}
