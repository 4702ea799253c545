import APNHTTP2

/// `apn-bench h2session`: request/response pairs per second through a client and a server
/// `HTTP2Session` joined in memory (no sockets, no TLS), both on this thread: APNs-like
/// request headers to distinct device tokens with a 100-byte body, answered `200` with an
/// `apns-id` and no body, as APNs answers an accepted notification. `--in-flight` streams
/// (1,000 by default, APNs' limit per connection) are kept open; the server advertises that
/// many.
enum H2SessionBenchmark {
    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 1_000_000, extra: ["--in-flight"])
        let inFlight = max(1, options.values["--in-flight"] ?? 1000)
        let requests = (0..<1024).map { requestHeaders(token: token($0)) }
        let body = [UInt8](repeating: 0x61, count: 100)
        print("h2session: client and server sessions in memory, \(requests[0].count) request headers, "
            + "\(body.count)-byte body, \(inFlight) streams in flight, \(options.operations) requests a round, "
            + "\(options.rounds) rounds")
        var failure: HTTP2Error?
        var answered = 0
        var sides: [Sides] = []
        let seconds = measureRounds(options.rounds) {
            do throws(HTTP2Error) {
                var time = Sides()
                answered = try drive(options.operations, inFlight: inFlight, requests: requests, body: body, time: &time)
                sides.append(time)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        guard answered == options.operations else {
            throw BenchUsageError(description: "only \(answered) of \(options.operations) requests were answered")
        }
        report("request/response pairs", operations: options.operations, seconds: seconds, unit: "requests/s")
        // Each end's share, as if it ran alone: the client is what an APNs provider runs.
        sides.removeFirst() // the unmeasured warm-up round
        report("  client session's calls alone", operations: options.operations, seconds: sides.map(\.client), unit: "requests/s")
        report("  server session's calls alone", operations: options.operations, seconds: sides.map(\.server), unit: "requests/s")
    }

    /// Seconds spent in each session's calls during one round.
    struct Sides {
        var client = 0.0
        var server = 0.0
    }

    static let responseHeaders = [HTTP2Header(":status", "200"), HTTP2Header("apns-id", "123e4567-e89b-12d3-a456-426614174000")]

    /// Sends `count` requests with `inFlight` open at a time, answering each on the server;
    /// returns how many responses the client received.
    static func drive(
        _ count: Int, inFlight: Int, requests: [[HTTP2Header]], body: [UInt8], time: inout Sides
    ) throws(HTTP2Error) -> Int {
        var serverConfiguration = HTTP2Session.Configuration()
        serverConfiguration.maxConcurrentStreams = UInt32(inFlight)
        let client = try HTTP2Session(role: .client)
        let server = try HTTP2Session(role: .server, configuration: serverConfiguration)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 20)
        var submitted = 0
        var answered = 0
        let clock = ContinuousClock()
        var mark = clock.now
        /// Adds the time since the last mark to `side`.
        func lap(_ side: WritableKeyPath<Sides, Double>) {
            let now = clock.now
            time[keyPath: side] += (now - mark).inSeconds
            mark = now
        }
        while answered < count {
            while submitted < count && client.activeStreamCount < inFlight {
                _ = try client.submitRequest(headers: requests[submitted & (requests.count - 1)], body: body)
                submitted += 1
            }
            try output(of: client, into: &bytes)
            lap(\.client)
            try feed(bytes, to: server)
            for case .request(let streamID, _, _) in server.takeEvents() {
                try server.submitResponse(streamID: streamID, headers: responseHeaders, body: [])
            }
            try output(of: server, into: &bytes)
            lap(\.server)
            try feed(bytes, to: client)
            for case .response in client.takeEvents() {
                answered += 1
            }
            lap(\.client)
        }
        return answered
    }

    /// Everything `sender` has to send, in `bytes`.
    static func output(of sender: HTTP2Session, into bytes: inout [UInt8]) throws(HTTP2Error) {
        bytes.removeAll(keepingCapacity: true)
        while sender.appendOutput(to: &bytes, limit: 1 << 20) > 0 {}
    }

    /// `bytes` fed to `receiver` in 16 KiB pieces (a TLS record's worth, as a socket driver
    /// would read them).
    static func feed(_ bytes: [UInt8], to receiver: HTTP2Session) throws(HTTP2Error) {
        var failure: HTTP2Error?
        bytes.withUnsafeBytes { raw in
            var start = 0
            while start < raw.count && failure == nil {
                let end = min(raw.count, start + 16_384)
                do throws(HTTP2Error) {
                    try receiver.receive(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                } catch {
                    failure = error
                }
                start = end
            }
        }
        if let failure { throw failure }
    }

    /// APNs request headers for one device, with a provider token's `authorization`.
    static func requestHeaders(token: String) -> [HTTP2Header] {
        [
            HTTP2Header(":method", "POST"),
            HTTP2Header(":scheme", "https"),
            HTTP2Header(":path", "/3/device/\(token)"),
            HTTP2Header(":authority", "api.push.apple.com"),
            HTTP2Header("authorization", "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyMzRERUYifQ.eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzAwMDAwMDAwfQ.MEUCIQDx3e8b0y5vXg2qKfX0m7r1Qw4b8h9c6tYk3pL2sN5jAiBq7W9eR3tY6uI1oP4aS8dF2gH5jK7lZ0xC3vB6nM9q"),
            HTTP2Header("apns-topic", "com.example.app"),
            HTTP2Header("apns-push-type", "alert"),
            HTTP2Header("apns-priority", "10"),
            HTTP2Header("apns-expiration", "0"),
        ]
    }

    /// A 64-digit hex token standing for device `index`.
    static func token(_ index: Int) -> String {
        let digits = String(index, radix: 16)
        return String(repeating: "0", count: 64 - digits.count) + digits
    }
}
