/// Path text as the CLI needs it, on plain strings. Foundation's `NSString` path methods are
/// not used: on Linux (swift-corelibs-foundation, Swift 6.3) `deletingLastPathComponent`
/// traps ("Illegal instruction") on a one-character relative path such as `c`, which made
/// `apn certs c` die.
enum PathText {
    /// `directory` and `name` joined by one `/` (`name` as it is when `directory` is empty).
    static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The folder that holds `path`, as `dirname` prints it without the `.`: "" for a name
    /// without a slash, "/" for a name directly under the root; trailing slashes are ignored.
    static func parent(of path: String) -> String {
        var text = Substring(path)
        while text.count > 1 && text.hasSuffix("/") { text = text.dropLast() }
        guard let slash = text.lastIndex(of: "/") else { return "" }
        var parent = text[..<slash]
        while parent.hasSuffix("/") { parent = parent.dropLast() }
        return parent.isEmpty ? "/" : String(parent)
    }
}
