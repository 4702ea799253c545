/// One flag as a subcommand declares it: the parser, `--help` and `apn completion` all read
/// this declaration, so a flag cannot be parsed without being documented, or the reverse.
struct Flag: Sendable {
    /// `--alert`.
    let name: String
    /// What the value is, as the usage shows it (`TEXT`, `simple|enhanced|frame`); nil for a
    /// switch, which takes none.
    let value: String?
    /// What it does, one or more sentences (wrapped when shown).
    let help: String
    /// The value taken without the flag, as the usage shows it; nil when there is none to show.
    let defaultValue: String?
    /// Whether a valued flag may be given more than once, each value kept (`--token`); a
    /// single-valued one given twice is refused rather than the first silently dropped.
    /// Its help says "repeatable" (a test checks the two agree).
    let repeatable: Bool

    /// A flag that takes one value: `--name VALUE`, `--name=VALUE`.
    static func valued(_ name: String, _ value: String, _ help: String, default defaultValue: String? = nil) -> Flag {
        Flag(name: name, value: value, help: help, defaultValue: defaultValue, repeatable: false)
    }

    /// A flag that takes a value and may be given again, every value kept (``Flags/all(_:)``).
    static func repeated(_ name: String, _ value: String, _ help: String) -> Flag {
        Flag(name: name, value: value, help: help, defaultValue: nil, repeatable: true)
    }

    /// A switch: `--name`, no value.
    static func toggle(_ name: String, _ help: String) -> Flag {
        Flag(name: name, value: nil, help: help, defaultValue: nil, repeatable: false)
    }

    /// The values a completion can offer, when ``value`` lists them (`simple|enhanced|frame`).
    var choices: [String] {
        guard let value, value.contains("|"), value.allSatisfy({ $0.isLowercase || $0.isNumber || "|.-".contains($0) })
        else { return [] }
        return value.split(separator: "|").map(String.init)
    }
}

/// Flags shown together under one heading, with text after them when they need it.
struct FlagGroup: Sendable {
    /// The heading line, e.g. `Connecting (each failed attempt is one line on standard error):`.
    var title: String?
    var flags: [Flag]
    /// Lines printed after the flags, as written.
    var notes: String?

    /// Flags without a heading.
    init(_ flags: [Flag], notes: String? = nil) {
        self.init(nil, flags, notes: notes)
    }

    init(_ title: String?, _ flags: [Flag], notes: String? = nil) {
        self.title = title
        self.flags = flags
        self.notes = notes
    }
}

/// `--help` and `--version`, which every command takes (``Flags`` reads them wherever they stand).
enum CommonFlags {
    static let help = Flag.toggle("--help", "print this usage and exit (also -h)")
    static let version = Flag.toggle("--version", "print apn's version and exit (also after a subcommand)")
}
