/// A system call that failed, with its `errno`: what the support types throw (a wake-up
/// pipe the system had no descriptor for, say). The layers above wrap it in their own error
/// (APNTLS's `TLSError(_:)`), so a caller sees one error type per layer.
package struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done, e.g. `"creating a wake-up pipe"`.
    package let operation: String
    /// The `errno` the call left.
    package let errno: Int32

    /// An error for `operation`, failed with `errno`.
    package init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    package var description: String { "\(operation): errno \(errno)" }
}
