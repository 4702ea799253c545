import Foundation

/// A secret (a passphrase, a provider token) from a flag, a file or the environment, never
/// echoed: a value on the command line shows in `ps`, a file or the environment does not.
enum SecretInput {
    /// The secret of `flag` (its value), else of `fileFlag` (the file's first line), else of
    /// `variable`; nil when none is given. The two flags exclude each other.
    static func read(_ flags: Flags, flag: String, fileFlag: String, variable: String) throws(UsageError) -> String? {
        let inline = flags.value(flag)
        let file = flags.value(fileFlag)
        if inline != nil && file != nil { throw UsageError("\(flag) and \(fileFlag) exclude each other") }
        if let inline { return inline }
        if let file { return try firstLine(of: file, flag: fileFlag) }
        return ProcessInfo.processInfo.environment[variable]
    }

    /// The file's text up to its first line break (a file written by `echo` ends with one).
    /// The message on failure names the file, never what it holds.
    private static func firstLine(of path: String, flag: String) throws(UsageError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw UsageError("\(flag): \(path) \(reason)")
        }
        let text = String(decoding: data, as: UTF8.self)
        return String(text.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" })
    }
}
