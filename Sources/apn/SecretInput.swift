import Foundation

/// A secret (a passphrase, a provider token) from a flag, a file or the environment, never
/// echoed: a value on the command line shows in `ps`, a file or the environment does not.
enum SecretInput {
    /// The secret of `flag` (its value), else of `fileFlag` (the file's first line), else of
    /// `variable`; nil when none is given. The two flags exclude each other.
    static func read(
        _ flags: Flags, flag: String, fileFlag: String, variable: String, environmentAllowed: Bool = true
    ) throws(UsageError) -> String? {
        let inline = flags.value(flag)
        let file = flags.value(fileFlag)
        if inline != nil && file != nil { throw UsageError("\(flag) and \(fileFlag) exclude each other") }
        let secret: String?
        if let inline {
            secret = inline
        } else if let file {
            secret = try firstLine(of: file, flag: fileFlag)
        } else {
            secret = environmentAllowed ? ProcessInfo.processInfo.environment[variable] : nil
        }
        if secret?.isEmpty == true {
            throw UsageError("\(inline != nil ? flag : file != nil ? fileFlag : "$" + variable) is empty")
        }
        return secret
    }

    /// The file's text up to its first line break (a file written by `echo` ends with one).
    /// The message on failure names the file, never what it holds.
    private static func firstLine(of path: String, flag: String) throws(UsageError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            // The path, not the secret, names the file; a secret typed by mistake is not echoed.
            throw UsageError("the file given with \(flag) \(reason)")
        }
        let text = String(decoding: data, as: UTF8.self)
        return String(text.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" })
    }
}
