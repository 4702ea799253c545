/// The `sound` of a notification: a sound file's name, or a critical alert sound.
///
/// A string literal is a ``named(_:)`` sound: `note.sound = "ping.aiff"`.
public enum Sound: Hashable, Sendable, ExpressibleByStringLiteral {
    /// A sound file in the app bundle (or `"default"`), written as a JSON string.
    case named(String)
    /// A critical alert sound, written as `{"critical":1,"name":…,"volume":…}`. `volume`
    /// (0.0 to 1.0) is omitted when `nil`. Critical alerts need Apple's entitlement.
    case critical(name: String, volume: Double?)

    /// A string literal is a named sound.
    public init(stringLiteral value: String) {
        self = .named(value)
    }

    /// The sound file's name, for both cases.
    public var name: String {
        switch self {
        case .named(let name), .critical(let name, _): name
        }
    }

    /// Appends the sound's JSON.
    func write(to writer: inout JSONWriter) {
        switch self {
        case .named(let name):
            writer.write(string: name)
        case .critical(let name, let volume):
            writer.bytes.append(UInt8(ascii: "{"))
            var first = true
            writer.writeStaticKey("critical", first: &first)
            writer.write(integer: 1)
            writer.writeStaticKey("name", first: &first)
            writer.write(string: name)
            if let volume {
                writer.writeStaticKey("volume", first: &first)
                writer.write(number: volume)
            }
            writer.bytes.append(UInt8(ascii: "}"))
        }
    }
}
