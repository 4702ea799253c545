import Foundation

/// CPU time (user + system) spent so far by this process's threads other than the main
/// one, read from `/proc/self/task/*/stat` (Linux; clock ticks of 10 ms). A benchmark whose
/// client runs on the main thread learns what the server threads cost on their own,
/// whoever was slower.
enum ThreadCPUTime {
    /// Seconds of CPU used by the live threads other than the main one (whose thread id is
    /// the process id).
    static func othersSeconds() -> Double {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let main = String(getpid())
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var ticks = 0
        for task in tasks where task != main {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let afterName = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm)": the state is field 3, utime field 14, stime field 15.
            let fields = stat[stat.index(after: afterName)...].split(separator: " ")
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
            ticks += user + system
        }
        return Double(ticks) / ticksPerSecond
    }
}
