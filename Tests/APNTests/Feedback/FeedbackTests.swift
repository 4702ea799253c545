import APNSupport
import APN
import APNTLS
import APNWire
import Dispatch
import Foundation
import APNMockGateway
import Synchronization
import Testing
import APNTestSupport
import APNTestTraits

/// Feedback against MockGateway's feedback listener (and a raw TLS server for bytes the
/// mock would never send), over real TLS.
@Suite("Feedback: reading the feedback service", .timeLimit(.minutes(10)), .threadPerTest)
struct FeedbackTests {
    static func options(_ fixture: GatewayFixture, _ configure: (inout Feedback.Options) -> Void = { _ in }) -> Feedback.Options {
        var options = Feedback.Options()
        options.address = "127.0.0.1"
        options.port = fixture.mock.feedbackPort
        options.cert = .data(fixture.clientCertificatePEM)
        options.key = .data(fixture.clientKeyPEM)
        options.ca = [.data(fixture.caPEM)]
        options.interval = nil  // nothing at creation unless a test sets an interval
        configure(&options)
        return options
    }

    static func token(_ n: Int, length: Int = 32) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: n &* 31 &+ $0) }
    }

    @Test("0, 1 and 10,000 tuples, each read once: the service forgets what it served", arguments: [0, 1, 10_000])
    func readsEveryTuple(count: Int) async throws {
        let fixture = try GatewayFixture()
        for n in 0..<count { try fixture.mock.queueFeedback(time: UInt32(1_700_000_000 + n), token: Self.token(n)) }
        let feedback = Feedback(options: Self.options(fixture))
        let entries = try await feedback.read()
        #expect(entries.count == count)
        #expect(entries.map(\.unixTime) == (0..<count).map { UInt32(1_700_000_000 + $0) })
        #expect(entries.map(\.device.token) == (0..<count).map { Self.token($0) })
        if let first = entries.first {
            #expect(first.time == Date(timeIntervalSince1970: 1_700_000_000))
        }
        #expect(try await feedback.read().isEmpty, "cleared once read")
    }

    @Test("tuples split across TLS records at every offset, with token lengths 1, 32 and 100")
    func splitAtEveryOffset() async throws {
        let fixture = try GatewayFixture()
        let feedback = Feedback(options: Self.options(fixture))
        let lengths = [1, 32, 100]
        let total = lengths.reduce(0) { $0 + 6 + $1 }
        for size in 1...total {
            fixture.mock.updateFaults { $0.feedbackWriteSize = size }
            for (n, length) in lengths.enumerated() {
                try fixture.mock.queueFeedback(time: UInt32(n + 1), token: Self.token(n, length: length))
            }
            let entries = try await feedback.read()
            #expect(entries.map(\.device.token.count) == lengths, "records of \(size) bytes")
            #expect(entries.map(\.unixTime) == [1, 2, 3])
        }
    }

    @Test("a partial tuple at close is discarded and logged, never crashes")
    func partialTupleAtClose() async throws {
        let whole = feedbackTuples((7, Self.token(1)), (8, Self.token(2)))
        let server = try RawTLSServer(sending: Array(whole.dropLast(5)))
        let log = CapturingLogHandler(level: .debug)
        let feedback = Feedback(options: server.options { options in options.logHandler = log })
        let entries = try await feedback.read()
        #expect(entries.map(\.unixTime) == [7])
        #expect(log.entries == [
            .init(level: .debug, message: "discarded a partial tuple at close", metadata: ["bytes": "\(38 - 5)"],
                  label: "swift-apn.feedback"),
        ])
    }

    @Test("a token length above the bound ends the read with an error")
    func tokenLengthBounded() async throws {
        let server = try RawTLSServer(sending: feedbackTuples((7, Self.token(1, length: 101))))
        let feedback = Feedback(options: server.options { _ in })
        do {
            _ = try await feedback.read()
            Issue.record("a 101-byte token length was accepted")
        } catch {
            #expect(error.code == .malformedResponse)
            // Says what came (a tuple with a long token), not "something other than an error response".
            #expect(error.message.contains("tuple whose token length is 101 bytes, outside 1...100"))
            #expect(error.message.contains("maxTokenLength"))
            #expect(!error.message.contains("error response"))
        }
    }

    @Test("batches of batchSize, then the final batch at close even when empty")
    func batches() async throws {
        let fixture = try GatewayFixture()
        for n in 0..<9 { try fixture.mock.queueFeedback(time: UInt32(n), token: Self.token(n)) }
        let feedback = Feedback(options: Self.options(fixture) { $0.batchSize = 3; $0.interval = nil })
        let batches = Lock<[[UInt32]]>([])
        feedback.on { event in
            if case .feedback(let entries) = event { batches.withLock { $0.append(entries.map(\.unixTime)) } }
        }
        let log = FeedbackLog()
        feedback.on(log.listener)
        var stream = feedback.entries.makeAsyncIterator()
        feedback.start()
        #expect(log.wait { $0.batches.count == 4 })
        feedback.cancel()  // ends the sequence after what was delivered
        var seen: [UInt32] = []
        while let entry = await stream.next() { seen.append(entry.unixTime) }
        #expect(seen == Array(0..<9))
        #expect(batches.withLock { $0 } == [[0, 1, 2], [3, 4, 5], [6, 7, 8], []])
    }

    @Test("without batching, one feedback event per entry")
    func unbatched() async throws {
        let fixture = try GatewayFixture()
        for n in 0..<3 { try fixture.mock.queueFeedback(time: UInt32(n), token: Self.token(n)) }
        let feedback = Feedback(options: Self.options(fixture) { $0.batchFeedback = false; $0.interval = nil })
        let sizes = Lock<[Int]>([])
        feedback.on { event in if case .feedback(let entries) = event { sizes.withLock { $0.append(entries.count) } } }
        let log = FeedbackLog()
        feedback.on(log.listener)
        let stream = feedback.entries
        feedback.start()
        #expect(log.wait { $0.batches.count == 3 })
        feedback.cancel()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 3)
        #expect(sizes.withLock { $0 } == [1, 1, 1])
        try fixture.mock.queueFeedback(time: 9, token: Self.token(9))
        feedback.start()  // after cancel(), polling again
        #expect(log.wait { $0.batches.count == 4 })
        #expect(log.batches.last == [9])
        #expect(fixture.mock.feedbackConnectionCount == 2)
    }

    @Test("polling on the injected clock: every interval, each read clearing the list")
    func intervalPolling() async throws {
        let fixture = try GatewayFixture()
        let clock = ManualClock()
        let log = FeedbackLog()
        try fixture.mock.queueFeedback(time: 1, token: Self.token(1))
        let (feedback, _) = heldFeedback(Self.options(fixture) { $0.clock = .manual(clock); $0.interval = .seconds(60) }) {
            $0.on(log.listener)
        }
        #expect(log.wait { $0.batches.count == 1 }, "the first visit at creation")
        #expect(log.batches == [[1]])
        try fixture.mock.queueFeedback(time: 2, token: Self.token(2))
        clock.advance(by: .seconds(59))
        clock.advance(by: .seconds(1))
        #expect(log.wait { $0.batches.count == 2 })
        #expect(log.batches == [[1], [2]])
        clock.advance(by: .seconds(60))
        #expect(log.wait { $0.batches.count == 3 })
        #expect(log.batches.last == [], "nothing new: an empty final batch")
        #expect(fixture.mock.feedbackConnectionCount == 3)
        feedback.cancel()
        feedback.cancel()
    }

    @Test("connection refused: feedbackError, and polling goes on at the next interval")
    func refusedThenRecovered() async throws {
        let fixture = try GatewayFixture.onFixedPort { port in try GatewayFixture { $0.feedbackPort = port } }
        let port = fixture.mock.feedbackPort
        _ = fixture.mock.stop()
        let clock = ManualClock()
        let log = FeedbackLog()
        let (feedback, _) = heldFeedback(Self.options(fixture) { $0.clock = .manual(clock); $0.interval = .seconds(60) }) {
            $0.on(log.listener)
        }
        #expect(log.wait { $0.errors.count == 1 })
        let second = try GatewayFixture {
            $0.feedbackPort = port
            $0.certificateAuthority = fixture.mock.certificateAuthority
        }
        try second.mock.queueFeedback(time: 5, token: Self.token(5))
        clock.advance(by: .seconds(60))
        #expect(log.wait { $0.batches == [[5]] })
        feedback.cancel()
    }

    @Test("bad credentials: an error event, and polling stops until start()")
    func badCredentials() async throws {
        let fixture = try GatewayFixture()
        let log = FeedbackLog()
        var stream: AsyncStream<Feedback.Entry>?
        let (feedback, queue) = heldFeedback(Self.options(fixture) {
            $0.cert = "/nonexistent/feedback-cert.pem"
            $0.interval = .seconds(3600)
        }) {
            $0.on(log.listener)
            stream = $0.entries
        }
        for await _ in stream! {}
        #expect(log.wait { $0.fatal.count == 1 })
        #expect(log.fatal.first?.message.contains("/nonexistent/feedback-cert.pem") == true)
        #expect(fixture.mock.feedbackConnectionCount == 0)
        await #expect(throws: APNError.self) { try await feedback.read() }
        queue.suspend()
        feedback.start()  // tries again, and stops again
        let again = feedback.entries
        queue.resume()
        for await _ in again {}
        #expect(log.wait { $0.fatal.count == 2 })
        #expect(log.batches.isEmpty)
    }
}

extension FeedbackTests {
    /// `apn feedback`'s polling test once exited 0 with nothing on stderr: its sequence,
    /// made after the first visit had already failed on the credentials, ended at once —
    /// before the `.error` event, still on the suspended callback queue, reached its listener.
    @Test("a sequence made after polling stopped on bad credentials ends after the error event", arguments: 0..<20)
    func refusedSequenceEndsAfterTheError(round: Int) async throws {
        let queue = DispatchQueue(label: "feedback-tests.refused")
        queue.suspend()
        let log = FeedbackLog()
        var options = Feedback.Options()
        options.address = "127.0.0.1"
        options.port = 9
        options.cert = "/nonexistent/feedback-cert.pem"
        options.key = "/nonexistent/feedback-key.pem"
        options.callbackQueue = queue
        let feedback = Feedback(options: options)  // polls at creation, and fails
        // A visit of its own fails the same way, after the poller's own began: the poller's
        // has most likely ended (and closed the sequences) when this returns.
        await #expect(throws: APNError.self) { try await feedback.read() }
        let stream = feedback.entries
        feedback.on(log.listener)
        queue.resume()
        for await _ in stream {}
        #expect(log.fatal.count == 1, "the error came before the end of the sequence")
        feedback.cancel()
    }

    @Test("without an interval, each start() polls once; the sequence stays open until cancel()")
    func startPollsOnceEachTime() async throws {
        let fixture = try GatewayFixture()
        let feedback = Feedback(options: Self.options(fixture) { $0.interval = nil })
        let log = FeedbackLog()
        feedback.on(log.listener)
        try fixture.mock.queueFeedback(time: 1, token: Self.token(1))
        feedback.start()
        #expect(log.wait { $0.batches.count == 1 })
        try fixture.mock.queueFeedback(time: 2, token: Self.token(2))
        feedback.start()
        #expect(log.wait { $0.batches.count == 2 })
        #expect(log.batches == [[1], [2]])
        feedback.cancel()
    }

    @Test("releasing a polling Feedback stops its thread (no more visits)")
    func releaseStopsPolling() async throws {
        let fixture = try GatewayFixture()
        let clock = ManualClock()
        let log = FeedbackLog()
        var entries: AsyncStream<Feedback.Entry>?
        var feedback: Feedback? = heldFeedback(Self.options(fixture) { $0.clock = .manual(clock); $0.interval = .seconds(60) }) {
            $0.on(log.listener)
            entries = $0.entries
        }.0
        #expect(log.wait { $0.batches.count == 1 })
        weak let released = feedback
        feedback = nil
        #expect(released == nil, "nothing else holds the poller")
        // Released: cancelled, so the sequence ends and no visit can follow.
        if let entries { for await _ in entries {} }
        clock.advance(by: .seconds(600))
        #expect(fixture.mock.feedbackConnectionCount == 1, "no visit after the poller was released")
    }
}
