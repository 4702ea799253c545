internal import Glibc

/// Writes diagnostics to file descriptor 2 (avoids the non-Sendable global `stderr`), for
/// APN's ``StandardErrorLogHandler``.
package enum StandardError {
    /// Writes `message` whole (retrying after `EINTR`; giving up on any other failure).
    package static func write(_ message: String) {
        var bytes = Array(message.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && Glibc.errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
        bytes.removeAll()
    }
}
