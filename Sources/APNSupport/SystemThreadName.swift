internal import Glibc

/// Names the calling thread for the operating system, where `top -H`, `perf` and
/// `/proc/self/task/*/comm` show it. Foundation's `Thread.name` does not reach Linux for
/// names longer than 15 bytes (glibc refuses them), and glibc's setter is not imported
/// into Swift: `/proc/thread-self/comm` takes the name instead.
package enum SystemThreadName {
    /// The most bytes Linux keeps of a thread's name.
    package static let maximumLength = 15

    /// Gives the calling thread `name`, cut to ``maximumLength`` bytes.
    package static func set(_ name: String) {
        let descriptor = Glibc.open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        let bytes = Array(name.utf8.prefix(maximumLength))
        _ = bytes.withUnsafeBufferPointer { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        Glibc.close(descriptor)
    }
}
