internal import Glibc

/// Reads whole files with POSIX calls, turning failures into ``TLSError``s that name the
/// path: how credential files (certificates, keys, PKCS#12 bundles, `.p8` keys) are read.
package enum FileBytes {
    /// The whole content of the file at `path`.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/fileNotFound`` when it does not exist,
    ///   ``TLSError/Kind-swift.struct/credentials`` when it cannot be opened or read (a
    ///   directory, no permission); both carry the path and `errno`.
    package static func read(_ path: String) throws(TLSError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = currentErrno
            throw TLSError(
                code == ENOENT || code == ENOTDIR ? .fileNotFound : .credentials, "opening \(path)", errno: code, path: path)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                let code = currentErrno
                if code == EINTR { continue }
                throw TLSError(.credentials, "reading \(path)", errno: code, path: path)
            }
            bytes += chunk[0..<count]
        }
    }
}
