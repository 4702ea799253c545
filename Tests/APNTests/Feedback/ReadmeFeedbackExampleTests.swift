import APN
import Dispatch
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// docs/LIBRARY.md's Feedback snippets, verbatim, against a MockGateway.
@Suite("docs/LIBRARY.md: Feedback usage", .timeLimit(.minutes(10)), .threadPerTest)
struct ReadmeFeedbackExampleTests {
    @Test func theReadmeFeedbackExampleReadsTheQueuedEntries() async throws {
        let fixture = try GatewayFixture()
        try fixture.mock.queueFeedback(time: 1_700_000_000, token: [UInt8](repeating: 0xAB, count: 32))
        let files = try fixture.writeClientPEMFiles()
        defer { files.remove() }
        let certificatePath = files.certificatePath
        let keyPath = files.keyPath
        var feedbackOptions = Feedback.Options()   // feedback.sandbox.push.apple.com:2196, every hour
        feedbackOptions.cert = .file(certificatePath)
        feedbackOptions.key = .file(keyPath)
        // Not in docs/LIBRARY.md: the mock instead of Apple's sandbox, and deliveries held until
        // the test's own listener is in place.
        feedbackOptions.address = "127.0.0.1"
        feedbackOptions.port = fixture.mock.feedbackPort
        feedbackOptions.ca = [.data(fixture.caPEM)]
        let callbacks = DispatchQueue(label: "readme-feedback")
        callbacks.suspend()
        feedbackOptions.callbackQueue = callbacks

        feedbackOptions.feedback = .each { time, device in  // node-apn's `feedback(time, device)`
            print(device, time)                             // drop the token unless re-registered after `time`
        }
        let feedback = Feedback(options: feedbackOptions)   // visits now, then every `interval`
        feedback.on { event in print(event) }               // .feedback([Entry]), .feedbackError, .error

        let log = FeedbackLog()
        feedback.on(log.listener)
        callbacks.resume()
        #expect(log.wait { $0.batches == [[1_700_000_000]] }, "the visit at creation read the entry")

        feedback.cancel()                                   // no more visits…
        feedback.start()                                    // …until start(): a visit now, then every `interval`

        #expect(log.wait { $0.batches.count == 2 })
        #expect(log.batches == [[1_700_000_000], []])
        feedback.cancel()
        try fixture.mock.queueFeedback(time: 1_700_000_060, token: [UInt8](repeating: 0xCD, count: 32))

        feedbackOptions.interval = nil                      // node-apn's 0: nothing until start()
        let reader = Feedback(options: feedbackOptions)
        for entry in try await reader.read() {              // one visit; the service then forgets them
            print(entry.device, entry.time)
        }

        // The polling poller was cancelled between visits: only the read can have taken it.
        #expect(try await reader.read().isEmpty, "the snippet's read took the queued entry")
        #expect(fixture.mock.feedbackConnectionCount == 4)
    }
}
