import APN
import APNTLS
import Foundation
import Synchronization
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// docs/LIBRARY.md's Provider snippets, verbatim, run against the HTTP/2 mock gateway.
@Suite("docs/LIBRARY.md: Provider usage", .timeLimit(.minutes(10)), .threadPerTest)
struct ReadmeProviderExampleTests {
    @Test func theReadmeProviderExampleDelivers() async throws {
        let fixture = try ProviderFixture(keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        defer { _ = fixture.gateway.stop() }

        // docs/LIBRARY.md, first block:
        var options = Provider.Options()
        options.authentication = .token(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", key: "AuthKey_ABC123DEFG.p8")
        options.topic = "com.example.app"                // apns-topic: the app's bundle id
        options.production = false                       // api.sandbox.push.apple.com:443

        #expect(options.host == "api.sandbox.push.apple.com")
        // Not in docs/LIBRARY.md: the mock's key and address instead of Apple's sandbox.
        try fixture.redirect(&options, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")

        // docs/LIBRARY.md, second block:
        let provider = Provider(options: options)
        provider.on(.unregistered) { response in print("stop sending to", response.device) }
        let device = try Device("a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90")
        let note = PushNotification().setAlertText("Hello").setBadge(1)   // the Notification Connection sends
        let response = try await provider.send(note, to: device)
        print(response.status ?? 0, response.apnsID?.uuidString ?? "")  // 200 and the apns-id
        let silent = try PushNotification.silent(["sync": "inbox"])    // content-available, background, priority 5
        for failed in await provider.send(silent, to: [device]) where !failed.isSuccess {
            print(failed.device, failed.reason?.rawValue ?? "no answer")
        }
        let statuses = Mutex([Int: Int]())                             // import Synchronization
        await provider.send(note, to: [device]) { index, response in    // each as it comes, on the I/O thread
            statuses.withLock { $0[response.status ?? 0, default: 0] += 1 }
        }
        await provider.shutdown()                                       // waits for every answer, then GOAWAY

        #expect(response.status == 200)
        #expect(statuses.withLock { $0 } == [200: 1])
        #expect(fixture.gateway.recordCount == 3)
        let records = fixture.gateway.records
        #expect(records[1].pushType == .background)
        #expect(records[1].priority == 5)
        #expect(String(decoding: records[1].payload, as: UTF8.self) == #"{"sync":"inbox","aps":{"content-available":1}}"#)
    }
}
