import Glibc

/// A pipe the I/O thread polls beside its sockets, so another thread can end its `poll()`
/// at once: a push, a flush, a connection attempt's result, a clock advance.
final class WakeSignal: Sendable {
    /// The end the I/O thread polls for reading.
    let descriptor: Int32
    private let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        let result = pipe(&ends)
        precondition(result == 0, "pipe() failed (errno \(errno))")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// Makes the read end readable. A full pipe already is, so a failed write is fine.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Consumes pending signals.
    func reset() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while scratch.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}
