import APN
import Foundation
import APNMockGateway

/// `apn demo`: the library's main job, start to finish, on an embedded MockGateway.
enum DemoCommand: Subcommand {
    static let name = "demo"
    static let summary = "run the whole story on an embedded mock gateway and check every outcome"
    static let synopsis = "[--count N] [--json]"
    static let about: String? = """
          Starts a MockGateway on 127.0.0.1 with certificates generated into a temporary directory,
          sends N notifications (default 10000) with a default Connection while the gateway refuses
          one token, answers one status 10 (shutdown) and closes one connection silently; prints
          each errorCallback call, the connection's events and the delivery report; checks every
          outcome against the gateway's record; then reads the gateway's feedback service.
        """
    static let flagGroups = [
        FlagGroup([
            .valued("--count", "N", "how many notifications (10...1000000)", default: "10000"),
            .toggle("--json", "one JSON line per step instead of text"),
        ])
    ]
    static let epilogue: String? = "Exits 0 when every outcome agrees with the gateway's record, 1 otherwise, 2 on bad options."

    static func run(_ flags: Flags) throws -> Int32 {
        guard flags.positional.isEmpty else {
            throw UsageError("demo takes no arguments, got \"\(flags.positional[0])\"")
        }
        let count = try flags.integer("--count", in: 10...1_000_000) ?? 10_000
        let printer = StepPrinter(json: flags.has("--json"))
        let directory = try TemporaryDirectory.make(prefix: "apn-demo")
        defer { TemporaryDirectory.remove(directory) }
        let demo = try DemoRun(plan: DemoPlan(count: count), directory: directory, printer: printer)
        defer { _ = demo.gateway.stop() }
        return runBlocking { await demo.run() }
    }
}
