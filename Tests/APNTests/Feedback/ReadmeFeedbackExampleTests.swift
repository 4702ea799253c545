import APN
import MockGateway
import Testing

/// The README's Feedback snippet, verbatim, against a MockGateway.
@Suite("README: Feedback usage", .timeLimit(.minutes(1)))
struct ReadmeFeedbackExampleTests {
    @Test func theReadmeFeedbackExampleReadsTheQueuedEntries() async throws {
        let fixture = try GatewayFixture()
        fixture.mock.queueFeedback(time: 1_700_000_000, token: [UInt8](repeating: 0xAB, count: 32))
        let files = try fixture.writeClientPEMFiles()
        defer { files.remove() }
        let certificatePath = files.certificatePath
        let keyPath = files.keyPath
        var feedbackOptions = Feedback.Options()   // feedback.sandbox.push.apple.com:2196, every hour
        feedbackOptions.cert = .file(certificatePath)
        feedbackOptions.key = .file(keyPath)
        // Not in the README: the mock instead of Apple's sandbox.
        feedbackOptions.address = "127.0.0.1"
        feedbackOptions.port = fixture.mock.feedbackPort
        feedbackOptions.ca = [.data(fixture.caPEM)]
        let feedback = Feedback(options: feedbackOptions)
        for entry in try await feedback.read() {    // one visit; the service then forgets them
            print(entry.device, entry.time)         // drop the token unless re-registered after entry.time
        }
        feedback.on { event in print(event) }      // .feedback([Entry]), .feedbackError, .error
        feedback.start()                           // now, then every `interval`
        feedback.cancel()

        #expect(fixture.mock.feedbackConnectionCount >= 1)
        #expect(try await feedback.read().isEmpty, "the snippet's read took the queued entry")
    }
}
