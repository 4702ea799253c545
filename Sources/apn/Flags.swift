/// A command-line mistake: reported on standard error with the usage hint, exit status 2.
struct UsageError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}

/// The flag parser: `--name value`, `--name=value`, repeatable flags, switches and
/// positional arguments, checked against the flags a subcommand declares (``FlagGroup``).
/// `--help` (`-h`) and `--version` are taken by every command; after `--` every argument
/// is positional.
struct Flags {
    /// Values of flags that take one, in the order given (repeatable flags keep them all).
    private(set) var values: [String: [String]] = [:]
    /// Boolean switches that were given.
    private(set) var switches: Set<String> = []
    /// Arguments that are not flags.
    private(set) var positional: [String] = []
    /// Whether `--help` or `-h` was given.
    private(set) var wantsHelp = false
    /// Whether `--version` was given (`apn --version`, but also `apn send --version`).
    private(set) var wantsVersion = false
    /// Every flag declared, so that reading an undeclared one is caught (a test run traps).
    private let declared: Set<String>
    /// The valued flags declared repeatable, which ``all(_:)`` reads.
    private let repeatable: Set<String>

    /// Parses `arguments` against the flags `groups` declare.
    init(_ arguments: [String], groups: [FlagGroup]) throws(UsageError) {
        let flags = groups.flatMap(\.flags)
        try self.init(
            arguments, valued: Set(flags.filter { $0.value != nil }.map(\.name)),
            repeatable: Set(flags.filter(\.repeatable).map(\.name)),
            switches: Set(flags.filter { $0.value == nil }.map(\.name)))
    }

    private init(
        _ arguments: [String], valued: Set<String>, repeatable: Set<String>, switches known: Set<String>
    ) throws(UsageError) {
        declared = valued.union(known)
        self.repeatable = repeatable
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || !argument.hasPrefix("-") || argument == "-" {
                positional.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
                continue
            }
            if argument == CommonFlags.version.name {
                wantsVersion = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if valued.contains(name) {
                // A second value would silently replace the first: refused unless declared repeatable.
                if values[name] != nil, !repeatable.contains(name) { throw UsageError("\(name) given twice") }
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else if index < arguments.count {
                    values[name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw UsageError("\(name) needs a value")
                }
            } else if known.contains(name) {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                switches.insert(name)
            } else {
                throw UsageError("unknown option \(name)")
            }
        }
    }

    /// Takes the flags a configuration file gives (``ConfigFile``) where the command line
    /// gave none: a flag typed overrides the file. A switch the file turns on stays on.
    mutating func fill(values given: [String: [String]], switches turnedOn: Set<String>) {
        for (name, fileValues) in given where values[name] == nil { values[name] = fileValues }
        switches.formUnion(turnedOn)
    }

    /// Whether the switch `name` was given.
    func has(_ name: String) -> Bool {
        check(name)
        return switches.contains(name)
    }

    /// Whether `name` was given, with a value or as a switch.
    func given(_ name: String) -> Bool {
        check(name)
        return values[name] != nil || switches.contains(name)
    }

    private func check(_ name: String) {
        assert(declared.contains(name), "\(name) is read but not declared")
    }

    /// The value of `name`, if given (the last, for a repeatable one).
    func value(_ name: String) -> String? {
        check(name)
        return values[name]?.last
    }

    /// Every value of the repeatable flag `name`.
    func all(_ name: String) -> [String] {
        check(name)
        assert(repeatable.contains(name), "\(name) is read as repeatable but not declared so")
        return values[name] ?? []
    }

    /// The last value of `name` as an integer within `range`, if given (in hex too, with
    /// a `0x` prefix, when `hex`).
    func integer<T: FixedWidthInteger>(
        _ name: String, as type: T.Type = T.self, in range: ClosedRange<T>, hex: Bool = false
    ) throws(UsageError) -> T? {
        guard let text = value(name) else { return nil }
        return try Self.integer(text, as: type, in: range, what: name, hex: hex)
    }

    /// Parses `text` as an integer within `range`; `what` names it in the error. With
    /// `hex`, a `0x` (or `0X`) prefix reads the rest as hexadecimal.
    static func integer<T: FixedWidthInteger>(
        _ text: String, as type: T.Type = T.self, in range: ClosedRange<T>, what: String, hex: Bool = false
    ) throws(UsageError) -> T {
        let hexText = hex && (text.hasPrefix("0x") || text.hasPrefix("0X")) ? text.dropFirst(2) : nil
        guard let number = hexText.map({ T($0, radix: 16) }) ?? T(text), range.contains(number) else {
            let form = hex ? "a whole number (decimal or 0x hex)" : "a whole number"
            throw UsageError("\(what): \"\(text)\" is not \(form) in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// Splits `text` at its last colon into the part before and the number after, when there is one.
    static func splitSuffix(_ text: String) -> (String, String?) {
        guard let colon = text.lastIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
