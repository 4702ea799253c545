import APN
import APNFeedbackStore
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// #29's "many writers at once", across processes: `apn tokens import` processes registering
/// and applying feedback to one store at the same time end in exactly the state Apple's rule
/// gives, whatever order their transactions committed in.
@Suite("apn tokens: many processes writing one store", .timeLimit(.minutes(10)), .ownsChildProcesses)
struct ApnStoreWritersTests {
    static func token(_ n: Int) -> String { String(repeating: "c3", count: 30) + String(format: "%04x", n) }

    @Test(
        "registrations, feedback and later registrations from 30 processes at once end as the rule says",
        arguments: ApnStoreLocation.Backend.available)
    func processesAtOnceEndInTheRulesState(_ backend: ApnStoreLocation.Backend) throws {
        try ApnStoreLocation.with(backend) { folder, location in
            // The schema exists before the writers race to open it.
            #expect(try ApnTokensTests.tokens(["count"], store: location).status == 0)
            let chunks = stride(from: 0, to: 200, by: 20).map { $0..<($0 + 20) }
            var files: [String] = []
            for (index, chunk) in chunks.enumerated() {
                // Registered at 1000; feedback at 1500; registered again, odd at 2000, even at 1200.
                files.append(try folder.file("register-\(index).txt", chunk.map { "\(Self.token($0)) 1000" }.joined(separator: "\n")))
                files.append(try folder.file("feedback-\(index).jsonl", chunk.map {
                    #"{"event":"feedback","time":1500,"token":"\#(Self.token($0))"}"#
                }.joined(separator: "\n")))
                files.append(try folder.file("again-\(index).txt", chunk.map {
                    "\(Self.token($0)) \($0 % 2 == 1 ? 2000 : 1200)"
                }.joined(separator: "\n")))
            }
            // All started before any is waited for: their transactions overlap.
            let writers = try files.map { try ApnProcess(["tokens", "import", $0, "--store", location]) }
            for writer in writers {
                let (status, error) = try writer.waitForExit(timeout: 300)
                #expect(status == 0, "\(error)")
            }

            let store = try TokenStore(location: location)
            for n in 0..<200 {
                let record = try #require(try store.lookup(try Device(Self.token(n))))
                #expect(record.registeredAt == (n % 2 == 1 ? 2000 : 1200))
                if n % 2 == 1 {
                    #expect(record.isActive, "token \(n): registered after the feedback")
                } else {
                    #expect(!record.isActive && record.deactivatedAt == 1500, "token \(n): feedback after its registration")
                }
                #expect(record.lastFeedbackAt == 1500)
            }
            #expect(try store.feedbackCount() == 200, "each tuple held once")
            #expect(try store.counts() == (active: 100, inactive: 100))
        }
    }
}
