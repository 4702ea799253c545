import APN
import Foundation

/// The notification `apn send` sends: `--payload`/`--payload-file` (JSON text, sent as
/// given) or built from `--alert`, `--title`, `--badge`, `--sound`, `--category`,
/// `--content-available`, `--mutable-content`, `--custom KEY=JSON`; and `--expiry`,
/// `--priority`.
enum PayloadFlags {
    static let valued: Set<String> = [
        "--payload", "--payload-file", "--alert", "--title", "--badge", "--sound", "--category", "--custom",
        "--expiry", "--priority",
    ]
    static let switches: Set<String> = ["--content-available", "--mutable-content"]
    private static let builders = ["--alert", "--title", "--badge", "--sound", "--category", "--custom"]

    static func notification(_ flags: Flags) throws(UsageError) -> APN.Notification {
        let note = try payload(flags)
        if let expiry = try flags.integer("--expiry", in: UInt32.min...UInt32.max) { note.setExpiry(expiry) }
        if let priority = try flags.integer("--priority", in: UInt8.min...UInt8.max) { note.setPriority(priority) }
        return note
    }

    private static func payload(_ flags: Flags) throws(UsageError) -> APN.Notification {
        let text = try payloadText(flags)
        let builderFlags = builders.filter { flags.values[$0] != nil }
            + switches.sorted().filter { flags.switches.contains($0) }
        if let text {
            guard builderFlags.isEmpty else {
                throw UsageError("\(builderFlags[0]) cannot be combined with --payload or --payload-file")
            }
            do throws(APNError) {
                return try APN.Notification(payloadJSON: text)
            } catch {
                throw UsageError("\(error.message)")
            }
        }
        let note = APN.Notification()
        if let alert = flags.value("--alert") { note.setAlertText(alert) }
        if let title = flags.value("--title") { note.setAlertTitle(title) }
        if let badge = try flags.integer("--badge", as: Int.self, in: 0...Int(Int32.max)) { note.setBadge(badge) }
        if let sound = flags.value("--sound") { note.setSound(.named(sound)) }
        if let category = flags.value("--category") { note.setCategory(category) }
        if flags.switches.contains("--content-available") { note.setContentAvailable(true) }
        if flags.switches.contains("--mutable-content") { note.setMutableContent(true) }
        for custom in flags.all("--custom") {
            guard let equals = custom.firstIndex(of: "="), equals != custom.startIndex else {
                throw UsageError("--custom needs KEY=JSON, got \"\(custom)\"")
            }
            let key = String(custom[..<equals])
            let json = String(custom[custom.index(after: equals)...])
            let value: APN.JSONValue
            do throws(JSONParseError) {
                value = try JSONParser().parse(json)
            } catch {
                throw UsageError("--custom \(key): invalid JSON: \(error)")
            }
            do throws(APNError) {
                try note.setCustom(key, value)
            } catch {
                throw UsageError("--custom \(key): \(error.message)")
            }
        }
        return note
    }

    private static func payloadText(_ flags: Flags) throws(UsageError) -> [UInt8]? {
        let inline = flags.value("--payload")
        let file = flags.value("--payload-file")
        switch (inline, file) {
        case (let inline?, nil):
            return Array(inline.utf8)
        case (nil, let file?):
            guard let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: file)
            else {
                throw UsageError("--payload-file: cannot read \(file)")
            }
            return Array(data)
        case (nil, nil):
            return nil
        case (_?, _?):
            throw UsageError("--payload and --payload-file exclude each other")
        }
    }
}
