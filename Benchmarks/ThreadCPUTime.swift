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
            ticks += threadTicks(of: task)
        }
        return Double(ticks) / ticksPerSecond
    }

    /// Seconds of CPU used by the live threads whose name (`/proc/self/task/*/comm`) is `name`,
    /// as Linux keeps it: its first 15 bytes.
    static func seconds(named name: String) -> Double {
        let name = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var ticks = 0
        for task in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                comm.trimmingCharacters(in: .whitespacesAndNewlines) == name
            else { continue }
            ticks += threadTicks(of: task)
        }
        return Double(ticks) / ticksPerSecond
    }

    /// User + system clock ticks of thread `task`.
    private static func threadTicks(of task: String) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
            let afterName = stat.lastIndex(of: ")")
        else { return 0 }
        // After "pid (comm)": the state is field 3, utime field 14, stime field 15.
        let fields = stat[stat.index(after: afterName)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        return user + system
    }
}
