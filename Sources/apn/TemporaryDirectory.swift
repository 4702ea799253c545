import Foundation

/// Private temporary directories (mode 0700, from `mkdtemp`).
enum TemporaryDirectory {
    /// Creates `$TMPDIR/PREFIX-XXXXXX` and returns its path.
    static func make(prefix: String) throws -> String {
        let template = PathText.join(NSTemporaryDirectory(), "\(prefix)-XXXXXX")
        var buffer = Array(template.utf8CString)
        guard let made = mkdtemp(&buffer) else { throw FileError(path: template, errno: errno) }
        return String(cString: made)
    }

    /// Removes `path` and everything in it; a failure is reported on standard error.
    static func remove(_ path: String) {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            LineWriter.stderr("apn: could not remove \(path): \(error)")
        }
    }
}
