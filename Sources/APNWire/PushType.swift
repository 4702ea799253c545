/// The `apns-push-type` header of a notification sent through the HTTP/2 provider API:
/// what kind of push it is, which Apple uses to deliver it and to check the topic and
/// priority. The binary protocol has no such field and ignores it.
///
/// A struct with `static let` values rather than an enum, so a type Apple adds later can
/// be sent as `PushType(rawValue: "newtype")` before this library names it.
public struct PushType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The header value, e.g. `"alert"`.
    public let rawValue: String

    /// A push type by its header value.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Shows an alert, plays a sound or badges the app icon. Topic: the bundle id.
    public static let alert = PushType(rawValue: "alert")
    /// Delivers content in the background, with no user interaction. Apple requires
    /// priority 5: a request of this type whose priority is 10 (the default) is sent with 5.
    /// Topic: the bundle id.
    public static let background = PushType(rawValue: "background")
    /// Asks for the device's location. Topic: the bundle id + `.location-query`.
    public static let location = PushType(rawValue: "location")
    /// An incoming Voice-over-IP call; payloads up to 5 KB. Topic: the bundle id + `.voip`.
    public static let voip = PushType(rawValue: "voip")
    /// Updates a watchOS complication. Topic: the bundle id + `.complication`.
    public static let complication = PushType(rawValue: "complication")
    /// Signals a File Provider extension. Topic: the bundle id + `.pushkit.fileprovider`.
    public static let fileprovider = PushType(rawValue: "fileprovider")
    /// Tells a managed device to contact its MDM server. Topic: the certificate's UID.
    public static let mdm = PushType(rawValue: "mdm")
    /// Updates a Live Activity. Topic: the bundle id + `.push-type.liveactivity`.
    public static let liveactivity = PushType(rawValue: "liveactivity")
    /// Push to Talk updates. Topic: the bundle id + `.voip-ptt`.
    public static let pushtotalk = PushType(rawValue: "pushtotalk")
    /// Reloads widgets. Topic: the bundle id + `.push-type.widgets`.
    public static let widgets = PushType(rawValue: "widgets")
    /// Reloads controls. Topic: the bundle id + `.push-type.controls`.
    public static let controls = PushType(rawValue: "controls")

    /// Every push type Apple documents, in the order of its documentation.
    public static let documented: [PushType] = [
        .alert, .background, .location, .voip, .complication, .fileprovider, .mdm, .liveactivity, .pushtotalk,
        .widgets, .controls,
    ]

    /// The header value.
    public var description: String { rawValue }
}
