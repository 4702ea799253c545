import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Notification payload JSON, node-apn's keys", .threadPerTest)
struct NotificationPayloadTests {
    static let cases: [Golden] = [
        Golden("empty notification", "{}") { Notification() },
        Golden(
            "node-apn README example",
            #"{"messageFrom":"Caroline","aps":{"badge":3,"sound":"ping.aiff","alert":"You have a new message"}}"#
        ) {
            let note = try Notification(payload: ["messageFrom": "Caroline"])
            note.badge = 3
            note.sound = "ping.aiff"
            note.alert = "You have a new message"
            return note
        },
        Golden(
            "README example with chained setters",
            #"{"messageFrom":"Caroline","aps":{"badge":3,"sound":"ping.aiff","alert":"You have a new message"}}"#
        ) {
            try Notification().setCustom("messageFrom", "Caroline")
                .setAlertText("You have a new message").setSound("ping.aiff").setBadge(3)
        },
        Golden("alert string", #"{"aps":{"alert":"Hello"}}"#) { Notification().setAlertText("Hello") },
        Golden("alert text replaces a string alert", #"{"aps":{"alert":"b"}}"#) {
            Notification().setAlertText("a").setAlertText("b")
        },
        Golden("string alert moves into body", #"{"aps":{"alert":{"body":"a","title":"t"}}}"#) {
            Notification().setAlertText("a").setAlertTitle("t")
        },
        Golden("text after title goes to body, after title", #"{"aps":{"alert":{"title":"t","body":"a"}}}"#) {
            Notification().setAlertTitle("t").setAlertText("a")
        },
        Golden("dictionary never collapses", #"{"aps":{"alert":{"body":"b"}}}"#) {
            Notification().setAlertText("a").setLocKey("k").setLocKey(nil).setAlertText("b")
        },
        Golden("title alone", #"{"aps":{"alert":{"title":"Title"}}}"#) { Notification().setAlertTitle("Title") },
        Golden("subtitle", #"{"aps":{"alert":{"body":"b","subtitle":"s"}}}"#) {
            Notification().setAlertText("b").setAlertSubtitle("s")
        },
        Golden("action", #"{"aps":{"alert":{"action":"View"}}}"#) { Notification().setAlertAction("View") },
        Golden("action-loc-key", #"{"aps":{"alert":{"body":"x","action-loc-key":"PLAY"}}}"#) {
            Notification().setAlertText("x").setActionLocKey("PLAY")
        },
        Golden("loc-key and loc-args", #"{"aps":{"alert":{"loc-key":"GAME_INVITE","loc-args":["Jenna","Frank"]}}}"#) {
            Notification().setLocKey("GAME_INVITE").setLocArgs(["Jenna", "Frank"])
        },
        Golden("loc-key nil deletes it", #"{"aps":{"alert":{"loc-args":["a"]}}}"#) {
            Notification().setLocKey("K").setLocArgs(["a"]).setLocKey(nil)
        },
        Golden("loc-args nil deletes it", #"{"aps":{"alert":{"loc-key":"K"}}}"#) {
            Notification().setLocKey("K").setLocArgs(["a"]).setLocArgs(nil)
        },
        Golden("nil on a string alert makes it a dictionary, as node-apn", #"{"aps":{"alert":{"body":"s"}}}"#) {
            Notification().setAlertText("s").setLocKey(nil).setLocArgs(nil).setLaunchImage(nil)
        },
        Golden("a string alert, then setLocKey(nil)", #"{"aps":{"alert":{"body":"Hello"}}}"#) {
            let note = Notification()
            note.alert = "Hello"
            return note.setLocKey(nil)
        },
        Golden("setLaunchImage(nil) on an empty notification", #"{"aps":{"alert":{}}}"#) {
            Notification().setLaunchImage(nil)
        },
        Golden("an empty loc-key or launch-image deletes it", #"{"aps":{"alert":{"body":"b"}}}"#) {
            Notification().setAlertText("b").setLocKey("K").setLaunchImage("i").setLocKey("").setLaunchImage("")
        },
        Golden("empty loc-args are written", #"{"aps":{"alert":{"loc-args":[]}}}"#) { Notification().setLocArgs([]) },
        Golden("action-loc-key nil is null: a single OK button", #"{"aps":{"alert":{"body":"x","action-loc-key":null}}}"#) {
            Notification().setAlertText("x").setActionLocKey("PLAY").setActionLocKey(nil)
        },
        Golden("empty strings are left out, as node-apn's falsy values", #"{}"#) {
            Notification().setAlertText("").setSound("").setCategory("")
        },
        Golden("an empty body in a dictionary is written", #"{"aps":{"alert":{"title":"t","body":""}}}"#) {
            Notification().setAlertTitle("t").setAlertText("")
        },
        Golden("title-loc-key and title-loc-args", #"{"aps":{"alert":{"title-loc-key":"T","title-loc-args":["1","2"]}}}"#) {
            Notification().setTitleLocKey("T").setTitleLocArgs(["1", "2"])
        },
        Golden(
            "subtitle-loc-key and subtitle-loc-args",
            #"{"aps":{"alert":{"subtitle-loc-key":"S","subtitle-loc-args":["x"]}}}"#
        ) {
            Notification().setSubtitleLocKey("S").setSubtitleLocArgs(["x"])
        },
        Golden("launch-image", #"{"aps":{"alert":{"body":"b","launch-image":"img.png"}}}"#) {
            Notification().setAlertText("b").setLaunchImage("img.png")
        },
        Golden("launch-image nil deletes it", #"{"aps":{"alert":{"body":"b"}}}"#) {
            Notification().setAlertText("b").setLaunchImage("img.png").setLaunchImage(nil)
        },
        Golden(
            "alert keys in insertion order",
            #"{"aps":{"alert":{"launch-image":"i","title":"t","body":"b","loc-key":"k","action":"a"}}}"#
        ) {
            Notification().setLaunchImage("i").setAlertTitle("t").setAlertText("b").setLocKey("k")
                .setAlertAction("a").setAlertTitle("t")
        },
        Golden("alert set as a dictionary value", #"{"aps":{"alert":{"title":"T","summary-arg":"Jane"}}}"#) {
            var alert = Alert()
            alert.title = "T"
            alert["summary-arg"] = "Jane"
            return Notification().setAlert(.dictionary(alert))
        },
        Golden("alert removed", #"{}"#) { Notification().setAlertText("x").setAlert(nil) },
        Golden("badge 0 is kept", #"{"aps":{"badge":0}}"#) { Notification().setBadge(0) },
        Golden("badge 12", #"{"aps":{"badge":12}}"#) { Notification().setBadge(12) },
        Golden("badge nil is omitted", #"{}"#) { Notification().setBadge(1).setBadge(nil) },
        Golden("sound name", #"{"aps":{"sound":"default"}}"#) { Notification().setSound("default") },
        Golden("critical sound", #"{"aps":{"sound":{"critical":1,"name":"alarm.caf","volume":0.8}}}"#) {
            Notification().setSound(.critical(name: "alarm.caf", volume: 0.8))
        },
        Golden("critical sound, full volume", #"{"aps":{"sound":{"critical":1,"name":"default","volume":1}}}"#) {
            Notification().setSound(.critical(name: "default", volume: 1))
        },
        Golden("critical sound without volume", #"{"aps":{"sound":{"critical":1,"name":"a.caf"}}}"#) {
            Notification().setSound(.critical(name: "a.caf", volume: nil))
        },
        Golden("content-available", #"{"aps":{"content-available":1}}"#) { Notification().setContentAvailable(true) },
        Golden("content-available off", #"{}"#) {
            Notification().setContentAvailable(true).setContentAvailable(false)
        },
        Golden("newsstand-available is content-available", #"{"aps":{"content-available":1}}"#) {
            Notification().setNewsstandAvailable(true)
        },
        Golden("newsstandAvailable property", #"{"aps":{"content-available":1}}"#) {
            let note = Notification()
            note.newsstandAvailable = true
            return note
        },
        Golden("mutable-content", #"{"aps":{"mutable-content":1}}"#) { Notification().setMutableContent(true) },
        Golden("url-args", #"{"aps":{"url-args":["boarding","A998"]}}"#) { Notification().setUrlArgs(["boarding", "A998"]) },
        Golden("empty url-args", #"{"aps":{"url-args":[]}}"#) { Notification().setUrlArgs([]) },
        Golden("category", #"{"aps":{"category":"INVITE"}}"#) { Notification().setCategory("INVITE") },
        Golden(
            "aps keys in node-apn's order whatever the order they were set",
            #"{"aps":{"badge":1,"sound":"s","alert":"a","content-available":1,"mutable-content":1,"url-args":["u"],"category":"c"}}"#
        ) {
            Notification().setCategory("c").setUrlArgs(["u"]).setMutableContent(true).setContentAvailable(true)
                .setAlertText("a").setSound("s").setBadge(1)
        },
        Golden("mdm replaces the payload", #"{"mdm":"magic"}"#) {
            Notification().setMDM("magic").setBadge(3).setAlertText("ignored")
        },
        Golden("mdm comes after custom keys", #"{"a":1,"mdm":"magic"}"#) {
            try Notification(payload: ["a": 1]).setMDM("magic")
        },
        Golden("mdm replaces a custom mdm key in place", #"{"a":1,"mdm":"magic","b":2}"#) {
            try Notification(payload: ["a": 1, "mdm": "old", "b": 2]).setMDM("magic")
        },
        Golden("mdm nil brings aps back", #"{"aps":{"badge":3}}"#) {
            Notification().setMDM("magic").setBadge(3).setMDM(nil)
        },
        Golden("custom keys first, aps last", #"{"z":1,"a":{"n":[1,2]},"aps":{"badge":1}}"#) {
            try Notification(payload: ["z": 1]).setBadge(1).setCustom("a", ["n": [1, 2]])
        },
        Golden("integer-like custom keys first", #"{"1":4,"2":2,"b":1,"a":3,"aps":{"badge":1}}"#) {
            try Notification(payload: ["b": 1, "2": 2, "a": 3, "1": 4]).setBadge(1)
        },
        Golden("custom key replaced in place", #"{"a":"new","b":2}"#) {
            try Notification(payload: ["a": 1, "b": 2]).setCustom("a", "new")
        },
        Golden("custom key removed", #"{"b":2}"#) {
            try Notification(payload: ["a": 1, "b": 2]).removeCustom("a").removeCustom("missing")
        },
        Golden("custom values of every kind", #"{"s":"x","n":-1.25,"t":true,"f":false,"z":null,"l":[]}"#) {
            try Notification(payload: ["s": "x", "n": -1.25, "t": true, "f": false, "z": nil, "l": []])
        },
        Golden("setPayload replaces every custom key", #"{"c":3,"aps":{"badge":1}}"#) {
            try Notification(payload: ["a": 1]).setBadge(1).setPayload(["c": 3])
        },
        Golden("escaping in values", #"{"aps":{"alert":"say \"hi\"\n\\o/ 😀"}}"#) {
            Notification().setAlertText("say \"hi\"\n\\o/ 😀")
        },
        Golden("delivery settings are not in the payload", #"{"aps":{"badge":1}}"#) {
            try Notification().setBadge(1).setExpiry(1_700_000_000).setPriority(5).setRetryLimit(3)
                .setTruncateAtWordEnd(true).clone(device: Device(String(repeating: "ab", count: 32)))
        },
    ]

    @Test("golden payloads", arguments: cases)
    func golden(_ golden: Golden) throws {
        let note = try golden.build()
        #expect(note.payloadString() == golden.expected)
        #expect(note.compiledPayload() == Array(golden.expected.utf8))
        #expect(note.length() == golden.expected.utf8.count)
        #expect(note.description == golden.expected)
        #expect(throws: Never.self) { try TestJSONParser.parse(note.payloadString()) }
    }

    @Test("a custom aps object is merged in place; aps that is not an object is rejected")
    func customAps() throws {
        let note = try Notification(payload: ["aps": ["badge": 2, "foo": "keep"], "a": 1]).setSound("x")
        #expect(note.payloadString() == #"{"aps":{"badge":2,"foo":"keep","sound":"x"},"a":1}"#)
        // The notification's values replace the custom ones in place, unless node-apn leaves
        // them out (an empty string), and the custom keys stay after compiling.
        note.setBadge(5).setAlertText("")
        try note.setCustom("aps", ["alert": "custom", "badge": 1])
        #expect(note.payloadString() == #"{"aps":{"alert":"custom","badge":5,"sound":"x"},"a":1}"#)
        #expect(note.payload == ["aps": ["alert": "custom", "badge": 1], "a": 1])
        // null is no custom aps; with nothing to write, aps is left out.
        #expect(try Notification(payload: ["aps": nil, "b": 2]).payloadString() == #"{"b":2}"#)
        #expect(try Notification(payload: ["aps": [:]]).setBadge(0).payloadString() == #"{"aps":{"badge":0}}"#)
        // mdm writes the custom payload as it is, aps included.
        #expect(try Notification(payload: ["aps": ["badge": 1]]).setSound("s").setMDM("m").payloadString()
            == #"{"aps":{"badge":1},"mdm":"m"}"#)
        for value: JSONValue in ["x", 1, true, [1]] {
            #expect {
                try Notification(payload: ["a": 1, "aps": value])
            } throws: { error in
                (error as? APNError)?.code == .reservedPayloadKey
            }
            #expect(throws: APNError.self) { try note.setCustom("aps", value) }
            #expect(throws: APNError.self) { try note.setPayload(["aps": value]) }
        }
        #expect(note.payload == ["aps": ["alert": "custom", "badge": 1], "a": 1])
    }

    @Test("properties read back what the setters wrote")
    func properties() throws {
        let device = try Device(String(repeating: "0f", count: 32))
        let note = Notification()
            .setBadge(0).setSound(.critical(name: "c", volume: 0.5)).setAlertText("x").setAlertTitle("t")
            .setContentAvailable(true).setMutableContent(true).setUrlArgs(["u"]).setCategory("c")
            .setMDM("m").setExpiry(99).setPriority(5).setRetryLimit(2).setEncoding(.ucs2)
            .setTruncateAtWordEnd(true)
        note.device = device
        #expect(note.badge == 0)
        #expect(note.sound == .critical(name: "c", volume: 0.5))
        #expect(note.sound?.name == "c")
        var alert = Alert(body: "x")
        alert.title = "t"
        #expect(note.alert == .dictionary(alert))
        #expect(note.alertText == "x")
        #expect(note.alert?.text == "x")
        #expect(note.contentAvailable && note.newsstandAvailable && note.mutableContent)
        #expect(note.urlArgs == ["u"])
        #expect(note.category == "c")
        #expect(note.mdm == "m")
        #expect(note.expiry == 99)
        #expect(note.priority == 5)
        #expect(note.retryLimit == 2)
        #expect(note.encoding == .ucs2)
        #expect(note.truncateAtWordEnd)
        #expect(note.device == device)
    }

    @Test("defaults are node-apn's")
    func defaults() {
        let note = Notification()
        #expect(note.expiry == 0)
        #expect(note.priority == 10)
        #expect(note.retryLimit == -1)
        #expect(note.encoding == .utf8)
        #expect(!note.truncateAtWordEnd)
        #expect(note.device == nil)
        #expect(note.alert == nil && note.badge == nil && note.sound == nil)
        #expect(!note.contentAvailable && !note.mutableContent)
        #expect(note.payload.isEmpty)
    }

    @Test("Alert properties map to their keys and read back")
    func alertProperties() {
        var alert = Alert()
        alert.body = "b"
        alert.title = "t"
        alert.subtitle = "s"
        alert.action = "a"
        alert.actionLocKey = "ak"
        alert.locKey = "lk"
        alert.locArgs = ["1"]
        alert.titleLocKey = "tk"
        alert.titleLocArgs = ["2"]
        alert.subtitleLocKey = "sk"
        alert.subtitleLocArgs = ["3"]
        alert.launchImage = "li"
        #expect(
            alert.description
                == #"{"body":"b","title":"t","subtitle":"s","action":"a","action-loc-key":"ak","loc-key":"lk","loc-args":["1"],"title-loc-key":"tk","title-loc-args":["2"],"subtitle-loc-key":"sk","subtitle-loc-args":["3"],"launch-image":"li"}"#
        )
        #expect(alert.body == "b" && alert.title == "t" && alert.subtitle == "s" && alert.action == "a")
        #expect(alert.actionLocKey == "ak" && alert.locKey == "lk" && alert.locArgs == ["1"])
        #expect(alert.titleLocKey == "tk" && alert.titleLocArgs == ["2"])
        #expect(alert.subtitleLocKey == "sk" && alert.subtitleLocArgs == ["3"] && alert.launchImage == "li")
        alert.title = nil
        alert["loc-args"] = [1]
        #expect(alert.title == nil)
        #expect(alert.locArgs == nil)
        #expect(alert.fields["loc-args"] == [1])
    }
}
