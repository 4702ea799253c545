import APN
import APNFeedbackStore
import Foundation
import Testing

/// The feedback tuples the store received, read back: each (token, time) once, with what
/// applying it did.
@Suite("Token store: feedback received")
struct FeedbackRecordTests {
    typealias Tests = TokenStoreTests

    @Test(arguments: StoreBackend.available)
    func everyTupleOnceWithItsOutcome(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.store()
        try store.register(Tests.device(1), at: 1_000)
        try store.register(Tests.device(2), at: 2_000)
        let batch = [Tests.entry(1, at: 1_500), Tests.entry(2, at: 1_500), Tests.entry(3, at: 1_500)]
        try store.apply(batch, readAt: 3_000)
        try store.apply(batch, readAt: 3_100)
        #expect(try store.feedbackCount() == 3)
        var records: [FeedbackRecord] = []
        try store.feedback { records.append($0) }
        #expect(records.map(\.device) == [1, 2, 3].map(Tests.device))
        #expect(records.map(\.outcome) == [.deactivated, .kept, .unknown])
        #expect(records.allSatisfy { $0.time == 1_500 && $0.readAt == 3_000 }, "the first application is kept")
    }
}
