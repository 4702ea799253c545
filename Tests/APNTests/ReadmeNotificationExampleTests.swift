import APNTestSupport
import APNTestTraits
import APN
import Testing

/// docs/LIBRARY.md's first snippet, verbatim (ReadmeSnippetTests checks it stays so), compiled
/// with only `import APN`, as a user would write it.
@Suite(.threadPerTest) struct ReadmeNotificationExampleTests {
    @Test func snippetBuildsTheDocumentedPayload() throws {
        let device = try Device("<a1b2c3d4 e5f60718 293a4b5c 6d7e8f90 a1b2c3d4 e5f60718 293a4b5c 6d7e8f90>")
        let note = try Notification(payload: ["messageFrom": "Caroline"])
            .setBadge(3)
            .setSound("ping.aiff")
            .setAlertText("You have a new message")
        note.expiry = 1_700_000_000
        try note.validate(for: .enhanced) // command 1 allows 256 bytes of payload
        print(note.payloadString())
        // {"messageFrom":"Caroline","aps":{"badge":3,"sound":"ping.aiff","alert":"You have a new message"}}
        print(device)
        // a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90

        #expect(note.payloadString()
            == #"{"messageFrom":"Caroline","aps":{"badge":3,"sound":"ping.aiff","alert":"You have a new message"}}"#)
        #expect(device.description == "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90")
        #expect(note.expiry == 1_700_000_000)
    }
}
