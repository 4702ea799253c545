import APN
import Foundation
import MockGateway

/// `apn demo`: the library's main job, start to finish, on an embedded MockGateway.
enum DemoCommand {
    static let usage = """
        usage: apn demo [--count N] [--json]
          Starts a MockGateway on 127.0.0.1 with certificates generated into a temporary directory,
          sends N notifications (default 10000) with a default Connection while the gateway refuses
          one token, answers one status 10 (shutdown) and closes one connection silently; prints
          each errorCallback call, the connection's events and the delivery report; checks every
          outcome against the gateway's record; then reads the gateway's feedback service.
          --count N   how many notifications (10...1000000)
          --json      one JSON line per step instead of text
        Exits 0 when every outcome agrees with the gateway's record, 1 otherwise, 2 on bad options.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let flags = try Flags(arguments, valued: ["--count"], switches: ["--json"])
        if flags.wantsHelp {
            print(usage)
            return 0
        }
        guard flags.positional.isEmpty else {
            throw UsageError("demo takes no arguments, got \"\(flags.positional[0])\"")
        }
        let count = try flags.integer("--count", in: 10...1_000_000) ?? 10_000
        let printer = StepPrinter(json: flags.switches.contains("--json"))
        let directory = try TemporaryDirectory.make(prefix: "apn-demo")
        defer { TemporaryDirectory.remove(directory) }
        let demo = try DemoRun(plan: DemoPlan(count: count), directory: directory, printer: printer)
        defer { _ = demo.gateway.stop() }
        return runBlocking { await demo.run() }
    }
}
