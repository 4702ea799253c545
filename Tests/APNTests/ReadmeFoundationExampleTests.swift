import APNTestSupport
import APNTestTraits
import APN
import Foundation
import Testing

/// docs/LIBRARY.md's Foundation snippet, verbatim (ReadmeSnippetTests checks it stays so),
/// compiled with only `import APN` and `import Foundation`: `PushNotification` is not
/// ambiguous there, and `Command` and `StatusCode` come with `import APN`.
@Suite(.threadPerTest) struct ReadmeFoundationExampleTests {
    @Test func pushNotificationNextToFoundation() throws {
        let reminder = PushNotification().setAlertText("Backup finished").setBadge(1) // not Foundation's Notification
        reminder.expiry = UInt32(Date().timeIntervalSince1970) + 3600
        print(Command.frame.payloadLimit, StatusCode.invalidToken) // 2048 8 (invalid token)

        #expect(reminder.payloadString() == #"{"aps":{"badge":1,"alert":"Backup finished"}}"#)
        #expect(Command.frame.payloadLimit == 2048)
        #expect("\(StatusCode.invalidToken)" == "8 (invalid token)")
        #expect(Foundation.Notification.Name("x").rawValue == "x")
    }
}
