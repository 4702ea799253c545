@testable import APN
import APNHTTP2
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

@Suite("HTTP/2 provider API: a notification as a request", .threadPerTest)
struct ProviderRequestTests {
    static let device = try! Device(String(repeating: "ab", count: 32))

    static func request(
        _ note: PushNotification, topic: String? = "com.example.app", requiresTopic: Bool = true
    ) throws(ProviderError) -> ProviderRequest {
        try ProviderRequest(
            note, to: device, authority: "api.push.apple.com", defaultTopic: topic, requiresTopic: requiresTopic)
    }

    static func fields(_ request: ProviderRequest) -> [String] {
        request.headers.map { "\($0.name): \($0.value)" }
    }

    @Test("every header, in order, for a fully specified notification")
    func everyHeader() throws {
        let id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let note = PushNotification().setAlertText("Hello").setTopic("com.example.app.voip").setPushType(.voip)
            .setPriority(5).setExpiry(1_700_000_000).setCollapseID("game-7").setAPNSID(id)
        let request = try Self.request(note)
        #expect(
            Self.fields(request) == [
                ":method: POST", ":scheme: https",
                ":path: /3/device/abababababababababababababababababababababababababababababababab",
                ":authority: api.push.apple.com", "apns-topic: com.example.app.voip", "apns-push-type: voip",
                "apns-priority: 5", "apns-expiration: 1700000000", "apns-collapse-id: game-7",
                "apns-id: e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
            ])
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"aps":{"alert":"Hello"}}"#)
    }

    @Test("defaults: the options' topic, alert push type, priority 10, expiration 0 (deliver once)")
    func defaults() throws {
        let request = try Self.request(PushNotification().setBadge(1))
        #expect(
            Array(Self.fields(request).dropFirst(4)) == [
                "apns-topic: com.example.app", "apns-push-type: alert", "apns-priority: 10", "apns-expiration: 0",
            ])
    }

    @Test("a content-available-only notification defaults to the background push type")
    func silentDefaultsToBackground() throws {
        let request = try Self.request(PushNotification().setContentAvailable(true))
        #expect(Self.fields(request).contains("apns-push-type: background"))
    }

    @Test("a background push goes with priority 5 when the notification says 10 (the default); 1 and 5 stay; alerts keep 10")
    func backgroundPriority() throws {
        #expect(Self.fields(try Self.request(PushNotification().setContentAvailable(true))).contains("apns-priority: 5"))
        let explicit = PushNotification().setBadge(1).setPushType(.background).setPriority(10)
        #expect(Self.fields(try Self.request(explicit)).contains("apns-priority: 5"))
        let low = PushNotification().setContentAvailable(true).setPriority(1)
        #expect(Self.fields(try Self.request(low)).contains("apns-priority: 1"))
        #expect(Self.fields(try Self.request(PushNotification().setBadge(1))).contains("apns-priority: 10"))
        let alertAndContent = PushNotification().setAlert("hi").setContentAvailable(true)
        #expect(Self.fields(try Self.request(alertAndContent)).contains("apns-priority: 10"), "an alert push, not background")
    }

    @Test(":path (one device's) stays out of the HPACK tables; the fields every request repeats are indexed")
    func pathNotIndexed() throws {
        let headers = try Self.request(PushNotification().setBadge(1)).headers
        #expect(headers.first { $0.name == ":path" }?.isIndexable == false)
        #expect(headers.filter { $0.name != ":path" }.allSatisfy { $0.isIndexable })
    }

    @Test("Notification.silent(): content-available only, background, priority 5")
    func silentConvenience() throws {
        let note = try PushNotification.silent(["sync": "inbox"])
        let request = try Self.request(note)
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"sync":"inbox","aps":{"content-available":1}}"#)
        #expect(Self.fields(request).contains("apns-push-type: background"))
        #expect(Self.fields(request).contains("apns-priority: 5"))
    }

    @Test("payload limit 4096 bytes, 5120 for voip, checked before sending")
    func payloadLimits() throws {
        let text = String(repeating: "x", count: 4_096 - #"{"aps":{"alert":""}}"#.utf8.count)
        _ = try Self.request(PushNotification().setAlertText(text))
        let error = #expect(throws: ProviderError.self) { try Self.request(PushNotification().setAlertText(text + "y")) }
        #expect(error?.code == .invalidNotification)
        #expect(error?.notificationError?.code == .payloadTooLarge)
        #expect(error?.notificationError?.limit == 4_096)
        _ = try Self.request(PushNotification().setAlertText(text + String(repeating: "y", count: 1_024)).setPushType(.voip))
        #expect(throws: ProviderError.self) {
            try Self.request(PushNotification().setAlertText(text + String(repeating: "y", count: 1_025)).setPushType(.voip))
        }
    }

    @Test("priority other than 10, 5, 1 is refused locally (BadPriority)")
    func priority() throws {
        _ = try Self.request(PushNotification().setPriority(1))
        let error = #expect(throws: ProviderError.self) { try Self.request(PushNotification().setPriority(7)) }
        #expect(error?.notificationError?.code == .invalidValue)
        #expect(error?.message.contains("BadPriority") == true)
    }

    @Test("a collapse id over 64 bytes is refused locally (BadCollapseId)")
    func collapseID() throws {
        _ = try Self.request(PushNotification().setCollapseID(String(repeating: "é", count: 32)))
        let error = #expect(throws: ProviderError.self) {
            try Self.request(PushNotification().setCollapseID(String(repeating: "é", count: 32) + "x"))
        }
        #expect(error?.message.contains("BadCollapseId") == true)
    }

    @Test("no topic: refused with token authentication (MissingTopic), omitted with a certificate")
    func missingTopic() throws {
        let error = #expect(throws: ProviderError.self) { try Self.request(PushNotification(), topic: nil) }
        #expect(error?.message.contains("MissingTopic") == true)
        let request = try Self.request(PushNotification(), topic: nil, requiresTopic: false)
        #expect(!Self.fields(request).contains { $0.hasPrefix("apns-topic") })
    }

    @Test("a Live Activity start needs an alert, attributes-type and attributes (Apple's rule); update and end do not")
    func liveActivityStart() throws {
        func start() -> PushNotification {
            PushNotification().setEvent("start").setPushType(.liveactivity).setTimestamp(1)
                .setContentState(["home": 0])
        }
        for (note, missing) in [
            (start(), "an alert, attributes-type, attributes"),
            (start().setAlertText("Kick-off"), "attributes-type, attributes"),
            (start().setAlertText("Kick-off").setAttributesType("MatchAttributes"), "attributes"),
            (start().setAttributesType("MatchAttributes").setAttributes([:]), "an alert"),
        ] {
            let error = #expect(throws: ProviderError.self) { try Self.request(note) }
            #expect(error?.code == .invalidNotification && error?.notificationError?.code == .invalidValue)
            #expect(error?.message.contains("needs \(missing) (Apple") == true, "\(error?.message ?? "")")
        }
        let complete = start().setAlertText("Kick-off").setAttributesType("MatchAttributes").setAttributes([:])
            .setInputPushToken(true).setInputPushChannel("dHbSRbbq7h5wXqSCjhvzAA==")
        #expect(Self.fields(try Self.request(complete)).contains("apns-push-type: liveactivity"))
        _ = try Self.request(PushNotification().setEvent("update").setPushType(.liveactivity).setContentState([:]))
        _ = try Self.request(PushNotification().setEvent("end").setPushType(.liveactivity).setContentState([:]))
    }

    @Test("a UCS-2 payload is refused: the provider API takes UTF-8 JSON")
    func ucs2() {
        let note = PushNotification().setAlertText("hi")
        note.encoding = .ucs2
        #expect(throws: ProviderError.self) { try Self.request(note) }
    }

    @Test("the binary protocol ignores the HTTP/2 headers: the same frame with or without them")
    func binaryIgnoresHeaders() {
        let plain = PushNotification().setAlertText("Hello")
        let headed = PushNotification().setAlertText("Hello").setTopic("t").setPushType(.voip).setCollapseID("c")
            .setAPNSID(UUID())
        #expect(plain.compiledPayload() == headed.compiledPayload())
        #expect(headed.clone(device: Self.device).collapseID == "c")
    }
}
