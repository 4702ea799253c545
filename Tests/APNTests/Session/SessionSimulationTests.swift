import APN
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// The seeded randomized simulation (see SessionSimulation). CI runs 2,000 seeds; a longer
/// run: `APN_SIMULATION_SEEDS=100000 swift test --filter SessionSimulationTests`, and one
/// seed alone: `APN_SIMULATION_SEED=1234 …`.
@Suite("Gateway session: randomized simulation", .threadPerTest)
struct SessionSimulationTests {
    static let seedCount = ProcessInfo.processInfo.environment["APN_SIMULATION_SEEDS"].flatMap(Int.init) ?? 2_000
    static let onlySeed = ProcessInfo.processInfo.environment["APN_SIMULATION_SEED"].flatMap(UInt64.init)

    /// Seeds in 8 slices so Swift Testing can run slices in parallel.
    @Test(arguments: 0..<8)
    func everyNotificationHasExactlyOneTruthfulOutcome(slice: Int) {
        let seeds: [UInt64] = Self.onlySeed.map { slice == 0 ? [$0] : [] }
            ?? stride(from: slice, to: Self.seedCount, by: 8).map(UInt64.init)
        var failures = 0
        for seed in seeds {
            var simulation = SessionSimulation(seed: seed)
            simulation.tracing = Self.onlySeed != nil
            simulation.run()
            if Self.onlySeed != nil { print(simulation.trace.joined(separator: "\n")) }
            if !simulation.violations.isEmpty {
                failures += 1
                if failures <= 3 {
                    let details = simulation.violations.prefix(8).joined(separator: "\n")
                    Issue.record("seed \(seed) (\(simulation.setup)):\n\(details)")
                }
            }
        }
        #expect(failures == 0, "\(failures) of \(seeds.count) seeds broke an invariant")
    }

    @Test func theSimulationExercisesEveryPath() {
        // Guards against a simulation that passes because nothing happens in it.
        var outcomes: Set<String> = []
        var cacheFull = 0
        var acknowledgementWaits = 0
        for seed in 0..<200 as Range<UInt64> {
            var simulation = SessionSimulation(seed: seed)
            simulation.run()
            cacheFull += simulation.cacheFullEvents
            acknowledgementWaits += simulation.acknowledgementWaits
            for outcome in simulation.outcomes.values {
                let name = switch outcome {
                case .accepted(let a): "accepted \(a)"
                case .rejected: "rejected"
                case .failed(let e): "failed \(e.code)"
                case .unknownFate(let r): "unknown \(r)"
                }
                outcomes.insert(name)
            }
        }
        // Not "accepted grace window, possibly duplicated": resent copies are always followed
        // by a marker, and the model leaves one unanswered past the grace window only when
        // the network holds its bytes, which the session takes for a stall (issue #25):
        // nothing is accepted by time after one, so the marker's answer accepts them.
        for wanted in ["accepted grace window", "accepted later identifier", "accepted shutdown identifier",
                       "accepted flush", "accepted flush, possibly duplicated", "rejected",
                       "failed notResent", "unknown evicted from the resend cache", "unknown unconfirmed at a silent close"] {
            #expect(outcomes.contains(wanted), "no \(wanted) in 200 seeds: \(outcomes.sorted())")
        }
        #expect(cacheFull > 0, "no cache filled in 200 seeds")
        #expect(acknowledgementWaits > 0, "no grace window waited for an acknowledgement in 200 seeds")
    }
}
