import APN
import APNTLS
import Foundation

/// `--config FILE` of a long-running command (#42): one JSON object that can carry every
/// flag the command takes, named without its dashes and with `_` for `-`
/// (`"feedback_port": 2196` is `--feedback-port 2196`), beside the keys the command reads
/// itself (the bridge's `"tenants"`). A flag on the command line overrides the file.
///
/// A value is a string, a whole number, `true` for a switch (`false`: not given), or an
/// array of strings for a repeatable flag. A secret — a store URL with a password — need
/// not be written in the file: `{"env": "NAME"}` takes the value of an environment
/// variable, `{"file": "PATH"}` the content of a file (one trailing line break dropped).
/// Such values are shown by their source, never their content (``sources``). An unknown key
/// is refused, so a misspelt one cannot silently drop a setting.
struct ConfigFile {
    /// The file's path, as given.
    let path: String
    /// The valued flags it gives, by flag name (`--port`), each value as text.
    private(set) var values: [String: [String]] = [:]
    /// The switches it turns on.
    private(set) var switches: Set<String> = []
    /// The keys the command reads itself (``read(_:flags:commandKeys:environment:)``'s `commandKeys`).
    private(set) var document = JSONObject()
    /// Where a value given by reference came from: shown instead of the value.
    enum Source: Equatable {
        /// `{"env": "NAME"}`.
        case environment(String)
        /// `{"file": "PATH"}`.
        case file(String)
    }

    /// The flags whose value came from the environment or a file: how to show them.
    fileprivate(set) var sources: [String: Source] = [:]

    /// The key that names `flag` in a file: `--feedback-port` is `feedback_port`.
    static func key(_ flag: String) -> String {
        String(flag.drop { $0 == "-" }).replacingOccurrences(of: "-", with: "_")
    }

    /// Reads `path` for a command that declares `flags` and reads `commandKeys` itself.
    /// `--config` itself, and any flag in `excluded` (what may only be typed: `--check-config`),
    /// cannot be set from the file.
    ///
    /// - Throws: ``UsageError`` naming the file and the key that is wrong.
    static func read(
        _ path: String, flags: [Flag], commandKeys: Set<String>, excluded: Set<String> = [],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(UsageError) -> ConfigFile {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path)
        } catch {
            let why = FileManager.default.fileExists(atPath: path) ? "cannot read it" : "no such file"
            throw UsageError("--config \(path): \(why)")
        }
        let root: JSONObject
        do throws(JSONParseError) {
            root = try JSONParser().parseObject(bytes: bytes)
        } catch {
            throw UsageError("--config \(path): not a JSON object: \(error)")
        }
        var file = ConfigFile(path: path)
        let byKey = Dictionary(
            flags.filter { $0.name != "--config" && !excluded.contains($0.name) }.map { (key($0.name), $0) },
            uniquingKeysWith: { first, _ in first })
        for (name, value) in root {
            if commandKeys.contains(name) {
                _ = file.document.updateValue(value, forKey: name)
                continue
            }
            guard let flag = byKey[name] else {
                let known = (Array(byKey.keys) + Array(commandKeys)).sorted().joined(separator: ", ")
                throw UsageError("--config \(path): unknown key \(String(reflecting: name)) (known: \(known))")
            }
            try file.take(value, for: flag, key: name, environment: environment)
        }
        return file
    }

    private mutating func take(
        _ value: APN.JSONValue, for flag: Flag, key: String, environment: [String: String]
    ) throws(UsageError) {
        let place = "--config \(path): \(key)"
        guard flag.value != nil else {
            guard case .bool(let on) = value else { throw UsageError("\(place) is a switch: true or false") }
            if on { switches.insert(flag.name) }
            return
        }
        if flag.repeatable, case .array(let elements) = value {
            var texts: [String] = []
            for (index, element) in elements.enumerated() {
                texts.append(try Self.text(element, at: "\(place)[\(index)]", environment: environment).text)
            }
            values[flag.name] = texts
            return
        }
        let (text, source) = try Self.text(value, at: place, environment: environment)
        values[flag.name] = [text]
        if let source { sources[flag.name] = source }
    }

    /// The text of a string or whole number, or of an `{"env"}`/`{"file"}` reference (and
    /// the reference, to show instead of the text).
    private static func text(
        _ value: APN.JSONValue, at place: String, environment: [String: String]
    ) throws(UsageError) -> (text: String, source: Source?) {
        switch value {
        case .string(let text):
            return (text, nil)
        case .number(let number) where number.rounded(.towardZero) == number && abs(number) < 1e15:
            return (String(Int64(number)), nil)
        case .object(let reference) where reference.count == 1:
            if case .string(let name)? = reference["env"] {
                guard let text = environment[name] else {
                    throw UsageError("\(place): the environment variable \(name) is not set")
                }
                return (text, .environment(name))
            }
            if case .string(let file)? = reference["file"] {
                let bytes: [UInt8]
                do {
                    bytes = try FileBytes.read(file)
                } catch {
                    let why = FileManager.default.fileExists(atPath: file) ? "cannot read" : "no such file"
                    throw UsageError("\(place): \(why): \(file)")
                }
                var text = String(decoding: bytes, as: UTF8.self)
                if text.hasSuffix("\n") { text.removeLast() }
                return (text, .file(file))
            }
        default:
            break
        }
        throw UsageError(
            "\(place) must be a string, a whole number, {\"env\": \"NAME\"} or {\"file\": \"PATH\"}")
    }
}

extension Flags {
    /// `flags` with `--config FILE`'s flags added where the command line gave none, and the
    /// file (nil without `--config`) for the keys the command reads itself.
    static func withConfigFile(
        _ flags: Flags, groups: [FlagGroup], commandKeys: Set<String> = [], excluded: Set<String> = []
    ) throws(UsageError) -> (Flags, ConfigFile?) {
        guard let path = flags.value("--config") else { return (flags, nil) }
        var file = try ConfigFile.read(path, flags: groups.flatMap(\.flags), commandKeys: commandKeys, excluded: excluded)
        // A value typed is shown as typed, not by the file's source it replaced.
        file.sources = file.sources.filter { !flags.given($0.key) }
        var merged = flags
        merged.fill(values: file.values, switches: file.switches)
        return (merged, file)
    }
}
