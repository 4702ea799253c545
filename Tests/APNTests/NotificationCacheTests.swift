import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Compiled payload cache and clone", .threadPerTest)
struct NotificationCacheTests {
    static func address(_ bytes: [UInt8]) -> UnsafeRawPointer? {
        bytes.withUnsafeBytes { $0.baseAddress }
    }

    @Test("the payload is compiled once and handed out until something changes")
    func cached() {
        let note = Notification().setAlertText("hello")
        let first = note.compiledPayload()
        let second = note.compiledPayload()
        #expect(first == second)
        #expect(Self.address(first) == Self.address(second))
        note.expiry = 100
        note.priority = 5
        note.retryLimit = 1
        note.truncateAtWordEnd = true
        #expect(Self.address(note.compiledPayload()) == Self.address(first), "delivery fields keep the cache")
    }

    @Test("compile, change the badge, compile again: new bytes (node-apn kept the old ones)")
    func badgeInvalidates() {
        let note = Notification().setBadge(1)
        #expect(note.payloadString() == #"{"aps":{"badge":1}}"#)
        note.badge = 2
        #expect(note.payloadString() == #"{"aps":{"badge":2}}"#)
        note.setBadge(3)
        #expect(note.compiledPayload() == Array(#"{"aps":{"badge":3}}"#.utf8))
    }

    static let changes: [(String, @Sendable (Notification) throws -> Void)] = [
        ("alert", { $0.alert = "other" }),
        ("alert text", { $0.setAlertText("other") }),
        ("alert title (inside the dictionary)", { $0.setAlertTitle("other") }),
        ("loc-key", { $0.setLocKey("K") }),
        ("loc-args", { $0.setLocArgs(["a"]) }),
        ("launch-image", { $0.setLaunchImage("i") }),
        ("subtitle", { $0.setAlertSubtitle("s") }),
        ("badge", { $0.badge = 9 }),
        ("sound", { $0.sound = "x" }),
        ("content-available", { $0.contentAvailable = true }),
        ("mutable-content", { $0.mutableContent = true }),
        ("url-args", { $0.urlArgs = ["u"] }),
        ("category", { $0.category = "c" }),
        ("mdm", { $0.mdm = "m" }),
        ("custom key", { try $0.setCustom("k", 1) }),
        ("remove custom key", { $0.removeCustom("keep") }),
        ("payload", { try $0.setPayload(["p": 1]) }),
        ("encoding", { $0.encoding = .ucs2 }),
        ("thread-id", { $0.threadID = "t" }),
        ("target-content-id", { $0.targetContentID = "t" }),
        ("interruption-level", { $0.interruptionLevel = .passive }),
        ("relevance-score", { $0.relevanceScore = 0.5 }),
        ("filter-criteria", { $0.filterCriteria = "f" }),
        ("timestamp", { $0.timestamp = 1 }),
        ("event", { $0.event = "start" }),
        ("content-state", { $0.contentState = [:] }),
        ("stale-date", { $0.staleDate = 1 }),
        ("dismissal-date", { $0.dismissalDate = 1 }),
        ("attributes-type", { $0.attributesType = "T" }),
        ("attributes", { $0.attributes = [:] }),
        ("input-push-token", { $0.inputPushToken = true }),
        ("input-push-channel", { $0.inputPushChannel = "c" }),
        ("trim", { $0.trim(toLength: 30) }),
    ]

    @Test("every payload change invalidates the cache", arguments: changes)
    func everyChangeInvalidates(_ name: String, _ change: @Sendable (Notification) throws -> Void) throws {
        let note = try Notification(payload: ["keep": 1]).setAlertText("hello world, a long text")
        let before = note.compiledPayload()
        try change(note)
        let after = note.compiledPayload()
        #expect(after != before, "\(name) did not change the payload")
        // The cached bytes are exactly what a fresh compile of the same state gives.
        let fresh = note.clone(device: try Device(String(repeating: "11", count: 32)))
        #expect(fresh.compiledPayload() == after)
    }

    @Test("clone copies everything, sets the device and shares the compiled bytes")
    func clone() throws {
        let first = try Device(String(repeating: "aa", count: 32))
        let second = try Device(String(repeating: "bb", count: 32))
        let original = try Notification(payload: ["k": "v"]).setBadge(0).setAlertText("x")
            .setSound("s").setContentAvailable(true).setMutableContent(true).setUrlArgs(["u"])
            .setCategory("c").setThreadID("t").setExpiry(42).setPriority(5).setRetryLimit(3)
            .setEncoding(.ucs2).setTruncateAtWordEnd(true)
        original.device = first
        let bytes = original.compiledPayload()

        let copy = original.clone(device: second)
        #expect(copy !== original)
        #expect(copy.device == second)
        #expect(original.device == first)
        #expect(copy.retryLimit == 3, "node-apn forgot retryLimit; we copy it")
        #expect(copy.expiry == 42 && copy.priority == 5 && copy.encoding == .ucs2 && copy.truncateAtWordEnd)
        #expect(copy.badge == 0 && copy.alert == "x" && copy.sound == "s" && copy.category == "c")
        #expect(copy.contentAvailable && copy.mutableContent && copy.urlArgs == ["u"] && copy.threadID == "t")
        #expect(copy.payload == ["k": "v"])
        #expect(copy.compiledPayload() == bytes)
        #expect(Self.address(copy.compiledPayload()) == Self.address(bytes), "clone must not recompile")

        copy.badge = 5
        #expect(original.badge == 0)
        #expect(original.compiledPayload() == bytes)
        #expect(copy.payloadString() == #"{"k":"v","aps":{"badge":5,"sound":"s","alert":"x","content-available":1,"mutable-content":1,"url-args":["u"],"category":"c","thread-id":"t"}}"#)
    }

    @Test("clone of a notification never compiled compiles once for both")
    func cloneUncompiled() throws {
        let original = Notification().setAlertText("y")
        let copy = original.clone(device: try Device(String(repeating: "cc", count: 32)))
        #expect(Self.address(copy.compiledPayload()) == Self.address(original.compiledPayload()))
        #expect(copy.payloadString() == #"{"aps":{"alert":"y"}}"#)
    }

    @Test("concurrent writers and readers see whole payloads")
    func concurrent() async throws {
        let note = Notification().setAlertText("start")
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for step in 0..<200 {
                        if worker % 2 == 0 {
                            note.badge = step
                            note.setAlertText("w\(worker)")
                        } else {
                            let text = note.payloadString()
                            #expect((try? TestJSONParser.parse(text)) != nil, "\(text)")
                            #expect(note.length() >= 20)
                        }
                    }
                }
            }
        }
        #expect(note.badge == 199)
        #expect(note.payloadString().hasPrefix(#"{"aps":{"badge":199,"alert":"w"#))
    }
}
