/// The flag part of a `--help`, made from the declarations (``FlagGroup``): one line a flag
/// (`  --name VALUE` then its help from column 30, wrapped at 100), under its group's heading.
enum UsageText {
    /// The column a flag's help starts at.
    static let helpColumn = 30
    /// The width lines are wrapped to.
    static let width = 100

    /// Every group: its heading, its flags, its notes.
    static func render(_ groups: [FlagGroup]) -> String {
        var lines: [String] = []
        for group in groups {
            if let title = group.title { lines.append(title) }
            for flag in group.flags { lines += render(flag) }
            if let notes = group.notes { lines.append(notes) }
        }
        return lines.joined(separator: "\n")
    }

    /// One flag's lines.
    static func render(_ flag: Flag) -> [String] {
        entry(flag.name + (flag.value.map { " \($0)" } ?? ""), flag.help + (flag.defaultValue.map { " (default \($0))" } ?? ""))
    }

    /// `  LEFT` and `help` from ``helpColumn`` (on the next line when `LEFT` reaches it), wrapped.
    static func entry(_ name: String, _ help: String) -> [String] {
        let left = "  " + name
        let wrapped = wrap(help, width: width - helpColumn)
        let indent = String(repeating: " ", count: helpColumn)
        guard left.count < helpColumn else { return [left] + wrapped.map { indent + $0 } }
        let first = left + String(repeating: " ", count: helpColumn - left.count) + (wrapped.first ?? "")
        return [first] + wrapped.dropFirst().map { indent + $0 }
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a longer word is a
    /// line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? word : " " + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
