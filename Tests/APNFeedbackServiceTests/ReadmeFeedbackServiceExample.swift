import APN
import APNFeedbackService
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Foundation
import Testing

/// docs/FEEDBACK-SERVICE.md, "Embedding the feedback service": the snippet verbatim
/// (ReadmeSnippetTests finds it), run against the mock's feedback listener.
@Suite("docs: embedding the feedback service", .threadPerTest)
struct ReadmeFeedbackServiceExample {
    static func embeddingTheFeedbackService(store: String, feedback: Feedback.Options) throws -> FeedbackService.Ending {
        var configuration = FeedbackService.Configuration(store: store, feedback: feedback)
        configuration.interval = nil                        // one visit; default: every hour
        configuration.events = { event in
            if case .visitNotCommitted(_, _, let count, let file, _) = event {
                print("\(count) tuples are not in the store; apply \(file ?? "the lines told") with apn tokens import")
            }
        }
        let service = try FeedbackService(configuration: configuration)
        // service.stop(), from any thread (a signal's), ends run() at once; what was read is committed
        let ending = service.run()                           // blocks: give it a thread of its own
        print(ending.isSuccess)
        return ending
    }

    @Test("the snippet visits once and finishes")
    func snippetRuns() throws {
        let fixture = try FeedbackServiceTests.Fixture(tuples: 3)
        #expect(try Self.embeddingTheFeedbackService(store: fixture.store, feedback: try fixture.mock.feedbackOptions()) == .finished)
        #expect(try fixture.stored().count == 3)
    }
}
