package import APNSupport

extension TLSError {
    /// A support type's failed system call (a wake-up pipe, say) as a
    /// ``Kind-swift.struct/configuration`` error with its errno.
    package init(_ error: SystemCallError) {
        self.init(.configuration, error.operation, errno: error.errno)
    }
}
