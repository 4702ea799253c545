import APN

/// JSON given as a flag's value (`--custom KEY=JSON`, `--content-state JSON`, …): parsed, or a
/// usage error naming the flag. The one place the command line reads JSON values.
enum FlagJSON {
    /// `text` parsed; `label` names it in the error (`--custom alert`, `--content-state`).
    static func value(_ text: String, label: String) throws(UsageError) -> APN.JSONValue {
        do throws(JSONParseError) {
            return try JSONParser().parse(text)
        } catch {
            throw UsageError("\(label): invalid JSON \(ErrorText.message(error))")
        }
    }
}
