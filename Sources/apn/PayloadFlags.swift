import APN
import Foundation

/// The notification `apn send` sends: `--payload`/`--payload-file` (JSON text, sent as
/// given) or built from `--alert`, `--title`, `--badge`, `--sound`, `--category`,
/// `--content-available`, `--mutable-content`, `--custom KEY=JSON`; and `--expiry`,
/// `--priority`.
enum PayloadFlags {
    static let group = FlagGroup(
        "Payload, either as JSON text (sent as given: key order and number text kept):",
        [
            .valued("--payload", "JSON", "the payload; --payload '{}' sends an empty one"),
            .valued("--payload-file", "FILE", "the payload from FILE (- for standard input)"),
            .valued("--alert", "TEXT", "or built from: the alert text"),
            .valued("--title", "TEXT", "the alert's title"),
            .valued("--badge", "N", "the badge number"),
            .valued("--sound", "NAME", "the sound to play"),
            .valued("--category", "NAME", "the notification's category"),
            .toggle("--content-available", "aps content-available: 1 (a background update)"),
            .toggle("--mutable-content", "aps mutable-content: 1 (a notification service extension may change it)"),
            .repeated("--custom", "KEY=JSON", "a custom payload key and its JSON value; repeatable"),
            .toggle(
                "--trim",
                "shorten the alert text, at a character, so the payload fits the format's limit (256 bytes for "
                    + "simple and enhanced, 2048 for frame, 4096 with --http2)"),
            .valued("--expiry", "UNIXTIME", "when the gateway may stop trying", default: "0"),
            .valued("--priority", "N", "10 or 5; other than 10 sends command 2 (--format frame)", default: "10"),
        ])
    static let switches = ["--content-available", "--mutable-content"]
    private static let builders = ["--alert", "--title", "--badge", "--sound", "--category", "--custom"]

    /// Refuses a send with no payload flag at all: an empty `{"aps":{}}` is rarely what was
    /// meant, so it takes `--payload '{}'`. Checked last, after every other mistake.
    static func requirePayload(_ flags: Flags) throws(UsageError) {
        guard !(["--payload", "--payload-file"] + builders + switches + LiveActivityFlags.names).contains(where: flags.given)
        else { return }
        throw UsageError(
            "no payload: give --alert TEXT (or --title, --badge, --sound, --category, --custom, --content-available), "
                + "or --payload JSON (--payload '{}' sends an empty one)")
    }

    static func notification(_ flags: Flags) throws(UsageError) -> APN.Notification {
        let note = try payload(flags)
        if let expiry = try flags.integer("--expiry", in: UInt32.min...UInt32.max) { note.setExpiry(expiry) }
        if let priority = try flags.integer("--priority", in: UInt8.min...UInt8.max) { note.setPriority(priority) }
        return note
    }

    private static func payload(_ flags: Flags) throws(UsageError) -> APN.Notification {
        let text = try payloadText(flags)
        let builderFlags =
            builders.filter { flags.value($0) != nil } + (switches + ["--trim"]).filter { flags.has($0) }
            + LiveActivityFlags.names.filter(flags.given)
        if let text {
            guard builderFlags.isEmpty else {
                throw UsageError("\(builderFlags[0]) cannot be combined with --payload or --payload-file")
            }
            do throws(APNError) {
                return try APN.Notification(payloadJSON: text)
            } catch {
                throw UsageError(ErrorText.message(error))
            }
        }
        let note = APN.Notification()
        if let alert = flags.value("--alert") { note.setAlertText(alert) }
        if let title = flags.value("--title") { note.setAlertTitle(title) }
        if let badge = try flags.integer("--badge", as: Int.self, in: 0...Int(Int32.max)) { note.setBadge(badge) }
        if let sound = flags.value("--sound") { note.setSound(.named(sound)) }
        if let category = flags.value("--category") { note.setCategory(category) }
        if flags.has("--content-available") { note.setContentAvailable(true) }
        if flags.has("--mutable-content") { note.setMutableContent(true) }
        for custom in flags.all("--custom") {
            guard let equals = custom.firstIndex(of: "="), equals != custom.startIndex else {
                throw UsageError("--custom needs KEY=JSON, got \"\(custom)\"")
            }
            let key = String(custom[..<equals])
            let value = try FlagJSON.value(String(custom[custom.index(after: equals)...]), label: "--custom \(key)")
            do throws(APNError) {
                try note.setCustom(key, value)
            } catch {
                throw UsageError("--custom \(key): \(error.message)")
            }
        }
        return note
    }

    /// With `--trim`, shortens the alert text so the payload fits `limit` bytes.
    static func trim(_ note: APN.Notification, to limit: Int, _ flags: Flags) {
        if flags.has("--trim") { note.trim(toLength: limit) }
    }

    /// What a payload over `limit` bytes can do, in `apn send`'s terms (the library's message
    /// names `trim(toLength:)`, which a shell cannot call).
    static func tooLarge(_ error: APNError, format: String, alternatives: String, _ flags: Flags) -> UsageError {
        // Only the ways out that apply to how the payload was given.
        let rest =
            flags.value("--payload") != nil || flags.value("--payload-file") != nil
            ? "a smaller --payload"
            : flags.has("--trim")
                ? "fewer or shorter --custom, --title or --category values (--trim cut the alert text and it still does not fit)"
                : "a shorter --alert, or --trim to cut the alert text to fit"
        return UsageError(
            "the payload is \(error.size ?? 0) bytes, over the \(error.limit ?? 0)-byte limit of \(format): \(alternatives)\(rest)")
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
