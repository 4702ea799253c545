import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Notification payload JSON, keys added after node-apn", .threadPerTest)
struct NotificationModernKeysTests {
    static let cases: [Golden] = [
        Golden("thread-id", #"{"aps":{"thread-id":"chat-42"}}"#) { Notification().setThreadID("chat-42") },
        Golden("target-content-id", #"{"aps":{"target-content-id":"w1"}}"#) { Notification().setTargetContentID("w1") },
        Golden("interruption-level passive", #"{"aps":{"interruption-level":"passive"}}"#) {
            Notification().setInterruptionLevel(.passive)
        },
        Golden("interruption-level active", #"{"aps":{"interruption-level":"active"}}"#) {
            Notification().setInterruptionLevel(.active)
        },
        Golden("interruption-level time-sensitive", #"{"aps":{"interruption-level":"time-sensitive"}}"#) {
            Notification().setInterruptionLevel(.timeSensitive)
        },
        Golden("interruption-level critical", #"{"aps":{"interruption-level":"critical"}}"#) {
            Notification().setInterruptionLevel(.critical)
        },
        Golden("interruption-level unknown raw value kept", #"{"aps":{"interruption-level":"someday"}}"#) {
            Notification().setInterruptionLevel(InterruptionLevel(rawValue: "someday"))
        },
        Golden("relevance-score", #"{"aps":{"relevance-score":0.75}}"#) { Notification().setRelevanceScore(0.75) },
        Golden("relevance-score 1", #"{"aps":{"relevance-score":1}}"#) { Notification().setRelevanceScore(1) },
        Golden("filter-criteria", #"{"aps":{"filter-criteria":"work"}}"#) { Notification().setFilterCriteria("work") },
        Golden("timestamp", #"{"aps":{"timestamp":1700000000}}"#) { Notification().setTimestamp(1_700_000_000) },
        Golden("event", #"{"aps":{"event":"update"}}"#) { Notification().setEvent("update") },
        Golden("content-state", #"{"aps":{"content-state":{"score":"2-1","minute":77}}}"#) {
            Notification().setContentState(["score": "2-1", "minute": 77])
        },
        Golden("stale-date", #"{"aps":{"stale-date":1700003600}}"#) { Notification().setStaleDate(1_700_003_600) },
        Golden("dismissal-date", #"{"aps":{"dismissal-date":1700007200}}"#) {
            Notification().setDismissalDate(1_700_007_200)
        },
        Golden("attributes-type", #"{"aps":{"attributes-type":"MatchAttributes"}}"#) {
            Notification().setAttributesType("MatchAttributes")
        },
        Golden("attributes", #"{"aps":{"attributes":{"home":"A","away":"B"}}}"#) {
            Notification().setAttributes(["home": "A", "away": "B"])
        },
        Golden(
            "every key, set backwards, written in order after node-apn's keys",
            #"{"aps":{"badge":1,"alert":"a","category":"c","thread-id":"t","target-content-id":"tc","interruption-level":"active","relevance-score":0.5,"filter-criteria":"f","timestamp":1,"event":"e","content-state":{},"stale-date":2,"dismissal-date":3,"attributes-type":"at","attributes":{}}}"#
        ) {
            Notification().setAttributes([:]).setAttributesType("at").setDismissalDate(3).setStaleDate(2)
                .setContentState([:]).setEvent("e").setTimestamp(1).setFilterCriteria("f").setRelevanceScore(0.5)
                .setInterruptionLevel(.active).setTargetContentID("tc").setThreadID("t")
                .setCategory("c").setAlertText("a").setBadge(1)
        },
        Golden(
            "Live Activity start",
            #"{"aps":{"alert":{"title":"Kick-off","body":"The match has started"},"timestamp":1700000000,"event":"start","content-state":{"home":0,"away":0},"stale-date":1700007200,"attributes-type":"MatchAttributes","attributes":{"homeTeam":"Lyon","awayTeam":"Nantes"}}}"#
        ) {
            Notification().setAlertTitle("Kick-off").setAlertText("The match has started")
                .setTimestamp(1_700_000_000).setEvent("start").setContentState(["home": 0, "away": 0])
                .setStaleDate(1_700_007_200).setAttributesType("MatchAttributes")
                .setAttributes(["homeTeam": "Lyon", "awayTeam": "Nantes"])
        },
        Golden("input-push-token", #"{"aps":{"input-push-token":1}}"#) { Notification().setInputPushToken(true) },
        Golden("input-push-token false is not written", "{}") { Notification().setInputPushToken(false) },
        Golden("input-push-channel", #"{"aps":{"input-push-channel":"dHbSRbbq7h5wXqSCjhvzAA=="}}"#) {
            Notification().setInputPushChannel("dHbSRbbq7h5wXqSCjhvzAA==")
        },
        Golden(
            "Live Activity start subscribing to a channel and asking for a token (iOS 18), keys in order",
            #"{"aps":{"alert":"Kick-off","timestamp":1700000000,"event":"start","content-state":{"home":0},"attributes-type":"MatchAttributes","attributes":{"homeTeam":"Lyon"},"input-push-token":1,"input-push-channel":"dHbSRbbq7h5wXqSCjhvzAA=="}}"#
        ) {
            Notification().setInputPushChannel("dHbSRbbq7h5wXqSCjhvzAA==").setInputPushToken(true)
                .setAttributes(["homeTeam": "Lyon"]).setAttributesType("MatchAttributes")
                .setContentState(["home": 0]).setEvent("start").setTimestamp(1_700_000_000).setAlertText("Kick-off")
        },
        Golden(
            "Live Activity end",
            #"{"aps":{"timestamp":1700009000,"event":"end","content-state":{"home":2,"away":1},"dismissal-date":1700012600}}"#
        ) {
            Notification().setEvent("end").setTimestamp(1_700_009_000).setContentState(["home": 2, "away": 1])
                .setDismissalDate(1_700_012_600)
        },
        Golden("cleared keys are omitted", "{}") {
            Notification().setThreadID("t").setThreadID(nil).setEvent("e").setEvent(nil)
                .setContentState(["a": 1]).setContentState(nil).setInterruptionLevel(.passive)
                .setInterruptionLevel(nil).setRelevanceScore(0.1).setRelevanceScore(nil)
        },
    ]

    @Test("the iOS 18 start keys read back")
    func startKeysReadBack() {
        let note = Notification()
        note.inputPushToken = true
        note.inputPushChannel = "c"
        #expect(note.inputPushToken && note.inputPushChannel == "c")
        note.inputPushToken = false
        #expect(note.payloadString() == #"{"aps":{"input-push-channel":"c"}}"#)
    }

    @Test("golden payloads", arguments: cases)
    func golden(_ golden: Golden) throws {
        let note = try golden.build()
        #expect(note.payloadString() == golden.expected)
        #expect(throws: Never.self) { try TestJSONParser.parse(note.payloadString()) }
    }

    @Test("properties read back")
    func properties() {
        let note = Notification()
        note.threadID = "t"
        note.targetContentID = "tc"
        note.interruptionLevel = "time-sensitive"
        note.relevanceScore = 0.25
        note.filterCriteria = "f"
        note.timestamp = 1
        note.event = "update"
        note.contentState = ["a": 1]
        note.staleDate = 2
        note.dismissalDate = 3
        note.attributesType = "T"
        note.attributes = ["b": 2]
        #expect(note.threadID == "t" && note.targetContentID == "tc")
        #expect(note.interruptionLevel == .timeSensitive)
        #expect(note.relevanceScore == 0.25 && note.filterCriteria == "f")
        #expect(note.timestamp == 1 && note.event == "update" && note.contentState == ["a": 1])
        #expect(note.staleDate == 2 && note.dismissalDate == 3)
        #expect(note.attributesType == "T" && note.attributes == ["b": 2])
        #expect(
            note.payloadString()
                == #"{"aps":{"thread-id":"t","target-content-id":"tc","interruption-level":"time-sensitive","relevance-score":0.25,"filter-criteria":"f","timestamp":1,"event":"update","content-state":{"a":1},"stale-date":2,"dismissal-date":3,"attributes-type":"T","attributes":{"b":2}}}"#
        )
    }
}
