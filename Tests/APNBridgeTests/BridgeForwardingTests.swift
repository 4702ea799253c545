import APNBridge
@_spi(APNBridge) import APN
@_spi(APNBridge) import APNCore
import APNWire
import Testing

/// What a binary notification becomes upstream: bytes as sent, the push type from the
/// payload unless the tenant sets one, priority and expiry as the binary protocol meant.
@Suite("Bridge: binary notifications as HTTP/2 requests")
struct BridgeForwardingTests {
    static func note(_ payload: String, expiry: UInt32? = nil, priority: UInt8? = nil) -> BridgedNotification {
        BridgedNotification(
            command: .frame, identifier: 7, token: [UInt8](repeating: 0xAB, count: 32), payload: Array(payload.utf8),
            expiry: expiry, priority: priority)
    }

    @Test("push type and priority from the payload", arguments: [
        (#"{"aps":{"alert":"hi"}}"#, PushType.alert, 10),
        (#"{"aps":{"content-available":1}}"#, .background, 5),
        (#"{ "aps" : { "content-available" : 1 }, "sync": "inbox" }"#, .background, 5),
        (#"{"aps":{"content-available":1,"badge":2}}"#, .alert, 10),
        (#"{"aps":{"alert":"content-available"}}"#, .alert, 10),
        (#"{"content-available":1,"aps":{}}"#, .alert, 10),
        (#"{"mdm":"00000000-1111-2222-3333-444444444444"}"#, .alert, 10),
        (#"{"aps":{"content-available":1}"#, .alert, 10),  // not JSON: Apple judges it, not us
        // The byte search: a near miss before the key, the key's first byte repeated.
        (#"{"aps":{"ccontent-availablcontent-available":1}}"#, .alert, 10),
        (#"{"x":"content-availabl","aps":{"content-available":1}}"#, .background, 5),
        (#"{"aps":{"cccccontent-available":1}}"#, .alert, 10),
        ("content-available", .alert, 10),
        // The search looks for the key's `-`: others before and after it, one too early in
        // the text for a key to end there.
        (#"{"id":"a-b-c","aps":{"content-available":1}}"#, .background, 5),
        (#"{"aps":{"content-available":1},"x":"-"}"#, .background, 5),
        (#"-{"aps":{"content-availabl-":1}}"#, .alert, 10),
    ])
    func derived(payload: String, pushType: PushType, priority: Int) {
        let forwarded = Self.note(payload).forwarded(topic: "com.example.app", pushType: nil)
        #expect(forwarded.pushType == pushType)
        #expect(forwarded.priority == priority)
        #expect(forwarded.payload == Array(payload.utf8), "the bytes as sent")
        #expect(forwarded.topic == "com.example.app")
    }

    @Test func expiryAndPriorityAsTheBinaryProtocolMeantThem() {
        #expect(Self.note(#"{"aps":{}}"#).forwarded(topic: "t", pushType: nil).expiry == 0, "none: deliver once")
        #expect(Self.note(#"{"aps":{}}"#, expiry: 0).forwarded(topic: "t", pushType: nil).expiry == 0)
        #expect(Self.note(#"{"aps":{}}"#, expiry: 1_900_000_000).forwarded(topic: "t", pushType: nil).expiry == 1_900_000_000)
        #expect(Self.note(#"{"aps":{}}"#, priority: 5).forwarded(topic: "t", pushType: nil).priority == 5)
        #expect(Self.note(#"{"aps":{}}"#, priority: 10).forwarded(topic: "t", pushType: nil).priority == 10)
        #expect(Self.note(#"{"aps":{}}"#).forwarded(topic: "t", pushType: nil).device.token == [UInt8](repeating: 0xAB, count: 32))
    }

    @Test func theTenantsPushTypeWins() {
        let mdm = Self.note(#"{"mdm":"magic"}"#, priority: 10).forwarded(topic: "com.apple.mgmt.x", pushType: .mdm)
        #expect(mdm.pushType == .mdm && mdm.priority == 10)
        let forcedBackground = Self.note(#"{"aps":{"alert":"x"}}"#).forwarded(topic: "t", pushType: .background)
        #expect(forcedBackground.pushType == .background && forcedBackground.priority == 5)
    }
}

/// A resend is recognised by what is delivered, whatever format carries it.
@Suite struct ResendKeyTests {
    static let token = [UInt8](repeating: 0xAB, count: 32)
    static let payload = Array(#"{"aps":{"alert":"x"}}"#.utf8)

    static func notification(_ command: Command, expiry: UInt32?, priority: UInt8?) -> BridgedNotification {
        BridgedNotification(command: command, identifier: 7, token: token, payload: payload, expiry: expiry, priority: priority)
    }

    @Test func aFrameWithPriority10AndTheSameNotificationAsCommand1HaveOneKey() {
        let frame = Self.notification(.frame, expiry: 0, priority: 10)
        let enhanced = Self.notification(.enhanced, expiry: 0, priority: nil)
        let bareFrame = Self.notification(.frame, expiry: nil, priority: nil)
        let simple = Self.notification(.simple, expiry: nil, priority: nil)
        #expect(frame.resendKey == enhanced.resendKey)
        #expect(frame.resendKey == bareFrame.resendKey)
        #expect(frame.resendKey == simple.resendKey)
        #expect(frame.resendKey == ResendKey(token: Self.token, payload: Self.payload, expiry: 0, priority: 10))
    }

    @Test func anotherPriorityOrExpiryIsAnotherNotification() {
        let frame = Self.notification(.frame, expiry: 0, priority: 10)
        #expect(frame.resendKey != Self.notification(.frame, expiry: 0, priority: 5).resendKey)
        #expect(frame.resendKey != Self.notification(.enhanced, expiry: 1_700_000_000, priority: nil).resendKey)
    }
}
