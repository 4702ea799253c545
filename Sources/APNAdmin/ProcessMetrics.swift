import Foundation

/// What the kernel says of this process (Linux `/proc/self`): resident memory, open
/// descriptors, threads. Every admin listener exports them under Prometheus' standard
/// `process_*` names, so a leak of memory, descriptors or threads shows in any command.
package struct ProcessMetrics: Sendable {
    /// Resident memory, bytes.
    package var residentBytes: Double = 0
    /// Open file descriptors.
    package var openFileDescriptors: Double = 0
    /// Threads.
    package var threads: Double = 0

    /// All zero (a test's, or before reading).
    package init() {}

    /// The values now; one that cannot be read stays 0 (a scrape never fails for it).
    package static func current() -> ProcessMetrics {
        var metrics = ProcessMetrics()
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        {
            metrics.residentBytes = pages * Double(sysconf(Int32(_SC_PAGESIZE)))
        }
        metrics.openFileDescriptors = Double(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count)
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }),
            let count = line.split(separator: "\t").last.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) })
        {
            metrics.threads = count
        }
        return metrics
    }
}

extension PrometheusText {
    /// Appends the `process_*` gauges of `process`, the same in every command's metrics.
    package mutating func process(_ process: ProcessMetrics) {
        single("process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.", process.residentBytes)
        single("process_open_fds", .gauge, help: "Number of open file descriptors.", process.openFileDescriptors)
        single("process_threads", .gauge, help: "Number of OS threads in the process.", process.threads)
    }
}
