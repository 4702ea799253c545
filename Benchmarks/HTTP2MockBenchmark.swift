import APNHTTP2
import APNTLS
import Foundation
import APNMockGateway

/// `apn-bench h2mock`: an in-process ``HTTP2MockGateway`` and one HTTP/2 client over TLS on
/// loopback (ALPN h2, certificate authentication), the client keeping 1,000 requests in
/// flight (100-byte payloads, 64-hex-digit tokens) on one connection. The figure is
/// requests answered per second, from the first request until the N-th answer; each round
/// uses a fresh gateway. Client and gateway share the machine's cores, and on a small
/// machine the client (an HTTP2Session too) is the slower of the two: so the gateway
/// thread's own CPU time is measured as well, and its capacity — requests per second of
/// that thread's CPU — printed beside the answered rate.
enum HTTP2MockBenchmark {
    static let inFlight = 1000

    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 200_000)
        let count = options.operations
        print("h2mock: one connection, \(inFlight) streams in flight, certificate authentication, "
            + "\(count) requests a round, \(options.rounds) rounds (+1 warm-up), fresh gateway each round")
        var seconds: [Double] = []
        var gatewaySeconds: [Double] = []
        for round in 0...options.rounds {
            let (elapsed, gatewayCPU) = try measureRound(count: count)
            if round > 0 {
                seconds.append(elapsed)
                gatewaySeconds.append(gatewayCPU)
            }
        }
        report("answered and recorded", operations: count, seconds: seconds, unit: "requests/s")
        report("gateway capacity (thread CPU)", operations: count, seconds: gatewaySeconds, unit: "requests/s")
    }

    /// One gateway, one client: seconds from the first request until `count` answers, and
    /// the CPU seconds the gateway's threads used meanwhile.
    static func measureRound(count: Int) throws -> (elapsed: Double, gatewayCPU: Double) {
        let gateway = try HTTP2MockGateway()
        defer { gateway.stop() }
        try gateway.start()
        let certificate = try gateway.certificateAuthority.issueClientCertificate(topic: "com.example.bench")
        let context = try TLSClientContext(
            trustedCertificates: [gateway.certificateAuthority.certificate], credentials: certificate.credentials(),
            applicationProtocols: ["h2"])
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: gateway.port, context: context)
        defer { connection.close() }
        try connection.handshake(deadline: .now + .seconds(5))
        connection.setReadAhead(true)
        let session = try HTTP2Session(role: .client)
        let requests = (0..<inFlight).map(request)
        let payload = Array((#"{"aps":{"alert":""# + String(repeating: "x", count: 80) + #""}}"#).utf8)

        let clock = ContinuousClock()
        let gatewayStart = ThreadCPUTime.othersSeconds()
        let start = clock.now
        var pipe = Pipe(connection: connection, session: session)
        var submitted = 0
        var answered = 0
        var open = 0
        while answered < count {
            while open < inFlight && submitted < count {
                _ = try session.submitRequest(headers: requests[submitted % inFlight], body: payload)
                submitted += 1
                open += 1
            }
            for event in try pipe.turn() {
                switch event {
                case .response(_, let headers, _):
                    guard headers[":status"] == "200" else {
                        throw BenchUsageError(description: "answered \(headers)")
                    }
                    answered += 1
                case .streamClosed: open -= 1
                default: break
                }
            }
        }
        let elapsed = clock.now - start
        let gatewayCPU = ThreadCPUTime.othersSeconds() - gatewayStart
        guard gateway.recordCount == count else {
            throw BenchUsageError(description: "the gateway recorded \(gateway.recordCount) of \(count)")
        }
        return (elapsed.inSeconds, gatewayCPU)
    }

    static func request(_ number: Int) -> [HTTP2Header] {
        let byte = String(UInt8(truncatingIfNeeded: number), radix: 16)
        let token = String(repeating: byte.count == 1 ? "0" + byte : byte, count: 32)
        return [
            HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "https"), HTTP2Header(":path", "/3/device/" + token),
            HTTP2Header(":authority", "api.push.apple.com"), HTTP2Header("apns-topic", "com.example.bench"),
            HTTP2Header("apns-push-type", "alert"), HTTP2Header("apns-priority", "10"),
            HTTP2Header("apns-expiration", "0"),
        ]
    }

    /// The client's I/O: write what the session has, wait for the socket, read once.
    struct Pipe {
        let connection: TLSConnection
        let session: HTTP2Session
        var output: [UInt8] = []
        var written = 0
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)

        mutating func turn() throws -> [HTTP2Event] {
            while true {
                if written == output.count {
                    output.removeAll(keepingCapacity: true)
                    written = 0
                    if session.appendOutput(to: &output, limit: 256 * 1024) == 0 { break }
                }
                let step = output.withUnsafeBytes { connection.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }
                guard case .done(let bytes) = step else {
                    if case .wantWrite = step { break }
                    throw BenchUsageError(description: "writing: \(step)")
                }
                written += bytes
            }
            _ = try connection.waitUntil(
                readable: true, writable: written < output.count, deadline: .now + .seconds(10))
            let step = buffer.withUnsafeMutableBytes { connection.read(into: $0) }
            switch step {
            case .done(let bytes):
                try buffer.withUnsafeBytes { try session.receive(UnsafeRawBufferPointer(rebasing: $0[..<bytes])) }
            case .wantRead, .wantWrite: break
            default: throw BenchUsageError(description: "reading: \(step)")
            }
            return session.takeEvents()
        }
    }
}
