import APNSupport
@_spi(APNBridge) import APN
import APNTLS
import Foundation
import APNMockGateway
import Synchronization
import Testing
import APNTestSupport
import APNTestTraits

/// `Provider.forward` (package): what the binary-protocol bridge sends through — each
/// notification's payload bytes exactly as given, its headers as given, one answer each.
@Suite("Provider: forwarding payloads as bytes", .timeLimit(.minutes(10)), .threadPerTest)
struct ProviderForwardingTests {
    /// Collects `forward`'s answers by index.
    final class Answers: Sendable {
        let responses = Lock<[Int: [ProviderResponse]]>([:])
        let all = DispatchSemaphore(value: 0)
        let expected: Int

        init(expected: Int) {
            self.expected = expected
        }

        func deliver(_ index: Int, _ response: ProviderResponse) {
            let done = responses.withLock { responses in
                responses[index, default: []].append(response)
                return responses.values.reduce(0) { $0 + $1.count } == expected
            }
            if done { all.signal() }
        }
    }

    @Test("bytes as given, headers as given, one answer for each in any order")
    func forwardsBytesAndHeaders() async throws {
        let refused = ProviderFixture.device(3)
        let fixture = try ProviderFixture { configuration in
            configuration.faults.rejectToken(refused.hexString, reason: .badDeviceToken)
        }
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        // Spacing, key order and number text a re-encoding would change.
        let payloads: [[UInt8]] = [
            Array(#"{ "aps" : { "alert" : "one" }, "n": 1.50 }"#.utf8),
            Array(#"{"z":0,"aps":{"content-available":1}}"#.utf8),
            Array(#"{"aps":{"alert":"three"}}"#.utf8),
        ]
        let notifications = [
            ForwardedNotification(
                device: ProviderFixture.device(1), payload: payloads[0], pushType: .alert, priority: 10, expiry: 0, topic: nil),
            ForwardedNotification(
                device: ProviderFixture.device(2), payload: payloads[1], pushType: .background, priority: 5,
                expiry: 1_900_000_000, topic: "com.example.app"),
            ForwardedNotification(device: refused, payload: payloads[2], pushType: .alert, priority: 10, expiry: 7, topic: nil),
        ]
        let answers = Answers(expected: 3)
        provider.forward(notifications) { index, response in answers.deliver(index, response) }
        #expect(await onThread { answers.all.wait(timeout: .now() + 60) == .success })
        let responses = answers.responses.withLock { $0 }
        #expect(responses.keys.sorted() == [0, 1, 2] && responses.values.allSatisfy { $0.count == 1 })
        #expect(responses[0]?.first?.status == 200 && responses[1]?.first?.status == 200)
        #expect(responses[2]?.first?.reason == .badDeviceToken)
        await provider.shutdown()

        let records = fixture.gateway.records.sorted { $0.token < $1.token }
        #expect(records.count == 2)
        #expect(records.map(\.payload) == [payloads[0], payloads[1]])
        #expect(records.map(\.pushType) == [.alert, .background])
        #expect(records.map(\.priority) == [10, 5])
        #expect(records.map(\.expiration) == [0, 1_900_000_000])
        #expect(records.allSatisfy { $0.topic == ProviderFixture.topic })
    }

    @Test("one that cannot be sent is answered at once, typed; the others go out", arguments: [
        (priority: 7, payload: 10), (priority: 10, payload: 4_097),
    ])
    func refusedBeforeSending(priority: Int, payload: Int) async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        let body = Array(#"{"aps":{"alert":""#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: payload) + Array(#""}}"#.utf8)
        let notifications = [
            ForwardedNotification(device: ProviderFixture.device(1), payload: body, pushType: .alert, priority: priority, expiry: 0, topic: nil),
            ForwardedNotification(
                device: ProviderFixture.device(2), payload: Array(#"{"aps":{}}"#.utf8), pushType: .alert, priority: 10,
                expiry: 0, topic: nil),
        ]
        let answers = Answers(expected: 2)
        provider.forward(notifications) { index, response in answers.deliver(index, response) }
        #expect(await onThread { answers.all.wait(timeout: .now() + 60) == .success })
        let responses = answers.responses.withLock { $0 }
        #expect(responses[0]?.first?.error?.code == .invalidNotification)
        #expect(responses[0]?.first?.attempts == 0)
        #expect(responses[1]?.first?.status == 200)
        await provider.shutdown()
        #expect(fixture.gateway.records.map(\.token) == [ProviderFixture.device(2).hexString])
    }

    /// The templates `forward` keeps (a few, most recent first) are shared by notifications
    /// with the same fields, across calls: each request still carries its own fields and
    /// payload, through more combinations than are kept.
    @Test("shared templates: every request with its own fields, across calls and evictions")
    func sharedTemplates() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        let combinations: [(PushType, Int, UInt32, String?)] = [
            (.alert, 10, 0, nil), (.alert, 5, 0, nil), (.alert, 10, 1_900_000_000, nil), (.background, 5, 0, nil),
            (.alert, 10, 0, "com.example.app"), (.alert, 1, 7, nil), (.alert, 10, 1_900_000_001, nil),
        ]
        var notifications: [ForwardedNotification] = []
        for number in 0..<42 {
            let (pushType, priority, expiry, topic) = combinations[(number * 5) % combinations.count]
            notifications.append(
                ForwardedNotification(
                    device: ProviderFixture.device(number), payload: Array(#"{"aps":{"badge":\#(number)}}"#.utf8),
                    pushType: pushType, priority: priority, expiry: expiry, topic: topic))
        }
        let answers = Answers(expected: notifications.count)
        for batch in stride(from: 0, to: notifications.count, by: 10) {
            let end = min(batch + 10, notifications.count)
            provider.forward(Array(notifications[batch..<end])) { index, response in
                answers.deliver(batch + index, response)
            }
        }
        #expect(await onThread { answers.all.wait(timeout: .now() + 60) == .success })
        #expect(answers.responses.withLock { $0.values.allSatisfy { $0.count == 1 && $0[0].status == 200 } })
        await provider.shutdown()
        let records = Dictionary(uniqueKeysWithValues: fixture.gateway.records.map { ($0.token, $0) })
        #expect(records.count == notifications.count)
        for (number, notification) in notifications.enumerated() {
            let record = try #require(records[ProviderFixture.device(number).hexString])
            #expect(record.payload == notification.payload)
            #expect(record.pushType == notification.pushType && record.priority == notification.priority)
            #expect(record.expiration == Int(notification.expiry) && record.topic == ProviderFixture.topic)
        }
    }
}
