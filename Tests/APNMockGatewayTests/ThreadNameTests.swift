import APNTestSupport
import APNTestTraits
import Foundation
import APNMockGateway
import Testing

/// The gateway's threads carry names the system keeps (at most 15 bytes), so `top -H`,
/// `perf` and the benchmarks' per-thread CPU figures can tell them apart.
@Suite(.threadPerTest) struct ThreadNameTests {
    @Test func acceptAndConnectionThreadsAreNamedForTheSystem() throws {
        let harness = try Harness()
        let client = try harness.connect()  // its thread named itself before serving the handshake
        let names = Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap {
            try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        })
        #expect(names.isSuperset(of: ["mock-gw-accept", "mock-fb-accept", "mock-gw-conn"]), "\(names.sorted())")
        withExtendedLifetime(client) {}  // open until the names were read
    }
}
