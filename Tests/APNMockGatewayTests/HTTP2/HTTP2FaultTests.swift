import APN
import APNHTTP2
import APNTLS
import Foundation
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// The scripted faults, each over loopback against a real client session.
@Suite(.threadPerTest) struct HTTP2FaultTests {
    @Test func refusesATokenWithAnyReasonAndItsStatus() throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        harness.gateway.updateFaults {
            $0.rejectToken(deviceToken(2).uppercased(), reason: .badDeviceToken)
            $0.rejectToken(deviceToken(3), reason: .expiredToken)
            $0.rejectToken(deviceToken(4), reason: ProviderReason(rawValue: "SomethingNew"), status: 418)
        }
        let answers = try (1...4).map { number in
            try #require(try client.exchange(headers: apnsRequest(token: deviceToken(number)), body: h2Payload(number)))
        }
        #expect(answers.map(\.status) == [200, 400, 410, 418])
        #expect(answers.map(\.reason) == [nil, "BadDeviceToken", "ExpiredToken", "SomethingNew"])
        #expect(harness.gateway.records.map(\.token) == [deviceToken(1)])
    }

    @Test func setFaultsReplacesTheFaultsWhileRunning() throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(1))?.status == 200)
        var faults = HTTP2MockGateway.Faults()
        faults.rejectToken(deviceToken(1), reason: .badDeviceToken)
        harness.gateway.setFaults(faults)
        #expect(harness.gateway.faults == faults)
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(2))?.reason == "BadDeviceToken")
        harness.gateway.setFaults(HTTP2MockGateway.Faults())
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(3))?.status == 200)
        #expect(harness.gateway.records.map(\.payload) == [h2Payload(1), h2Payload(3)])
    }

    @Test func answersUnregisteredWithTheTimestampInMilliseconds() throws {
        let since = Date(timeIntervalSince1970: 1_700_000_123.456)
        var faults = HTTP2MockGateway.Faults()
        faults.unregisterToken(deviceToken(5), since: since)
        let harness = try HTTP2Harness(faults: faults)
        let client = try harness.certificateClient()
        let response = try #require(try client.exchange(headers: apnsRequest(token: deviceToken(5)), body: h2Payload(1)))
        #expect(response.status == 410)
        #expect(response.reason == "Unregistered")
        #expect(response.timestamp == 1_700_000_123_456)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"reason":"Unregistered","timestamp":1700000123456}"#)
    }

    @Test func throttlesTheRequestsAfterTheFirstAcceptedThenAcceptsAgain() throws {
        var faults = HTTP2MockGateway.Faults()
        faults.throttle(afterAccepting: 2, refusing: 3)
        let harness = try HTTP2Harness(faults: faults)
        let client = try harness.certificateClient()
        let statuses = try (1...7).map { number in
            try client.exchange(headers: apnsRequest(token: deviceToken(number)), body: h2Payload(number))?.status
        }
        #expect(statuses == [200, 200, 429, 429, 429, 200, 200])
        #expect(harness.gateway.summary.reasons == [.tooManyRequests: 3])
        #expect(harness.gateway.faults.throttledRequests == 0)
    }

    @Test(arguments: [ProviderReason.internalServerError, .serviceUnavailable])
    func failsTheNextRequestsThenAcceptsAgain(_ reason: ProviderReason) throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(1))?.status == 200)
        harness.gateway.updateFaults { $0.failNextRequests(2, reason: reason) }
        let statuses = try (2...4).map { try client.exchange(headers: apnsRequest(), body: h2Payload($0))?.status }
        #expect(statuses == [reason.status, reason.status, 200])
        #expect(harness.gateway.recordCount == 2)
    }

    @Test func sendsGoawayAfterNRequestsAndTheClientSeesTheRestRefused() throws {
        var faults = HTTP2MockGateway.Faults()
        faults.goawayAfterRequests = 3
        let harness = try HTTP2Harness(faults: faults)
        let client = try harness.certificateClient()
        let streams = try (1...10).map { try client.submit(headers: apnsRequest(token: deviceToken($0)), body: h2Payload($0)) }
        #expect(try client.waitForStreams(streams))
        let goaway = try #require(client.goaway)
        #expect(goaway.lastStreamID == streams[2])
        #expect(goaway.errorCode == .noError)
        #expect(String(decoding: goaway.debugData, as: UTF8.self) == #"{"reason":"Shutdown"}"#)
        #expect(streams.prefix(3).map { client.responses[$0]?.status } == [200, 200, 200])
        #expect(streams.dropFirst(3).allSatisfy { client.closedStreams[$0] == .refusedStream && client.responses[$0] == nil })
        #expect(harness.gateway.records.map(\.token) == (1...3).map(deviceToken))
        #expect(try client.waitForEnd() == .closed(clean: true), "the connection ends once its streams are answered")
        #expect(harness.gateway.summary.goaways == 1)
        // A new connection serves three more.
        let next = try harness.certificateClient()
        #expect(try next.exchange(headers: apnsRequest(), body: h2Payload(11))?.status == 200)
    }

    @Test func resetsAfterNRequestsLeavingThePendingOnesUnanswered() throws {
        var faults = HTTP2MockGateway.Faults()
        faults.resetAfterRequests = 3
        faults.responseDelay = .seconds(30)
        let harness = try HTTP2Harness(faults: faults)
        let client = try harness.certificateClient()
        let streams = try (1...5).map { try client.submit(headers: apnsRequest(token: deviceToken($0)), body: h2Payload($0)) }
        #expect(try client.waitForEnd() == .failed(.connectionReset))
        #expect(streams.allSatisfy { client.responses[$0] == nil })
        #expect(harness.gateway.summary.resets == 1)
        #expect(harness.gateway.recordCount <= 2, "what arrived before the third may have been judged, never answered")
    }

    @Test func holdsEveryAnswerBackForTheDelayWhileReading() throws {
        var faults = HTTP2MockGateway.Faults()
        faults.responseDelay = .milliseconds(300)
        let harness = try HTTP2Harness(faults: faults)
        let client = try harness.certificateClient()
        let started = ContinuousClock.now
        let first = try client.submit(headers: apnsRequest(token: deviceToken(1)), body: h2Payload(1))
        // The gateway judges (and records) at once and answers later.
        #expect(try client.run { harness.gateway.recordCount == 1 })
        #expect(client.responses[first] == nil)
        let second = try client.submit(headers: apnsRequest(token: deviceToken(2)), body: h2Payload(2))
        #expect(try client.waitForStreams([first]))
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(try client.waitForStreams([second]))
        #expect(client.responses[first]?.status == 200 && client.responses[second]?.status == 200)
        #expect(harness.gateway.recordCount == 2)
    }

    @Test func closesAnIdleConnectionWithGoaway() throws {
        var faults = HTTP2MockGateway.Faults()
        faults.idleTimeout = .milliseconds(200)
        let harness = try HTTP2Harness(faults: faults)
        let client = try harness.certificateClient()
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(1))?.status == 200)
        let idleSince = ContinuousClock.now
        #expect(try client.waitForEnd() == .closed(clean: true))
        #expect(ContinuousClock.now - idleSince >= .milliseconds(150))
        let goaway = try #require(client.goaway)
        #expect(String(decoding: goaway.debugData, as: UTF8.self) == #"{"reason":"IdleTimeout"}"#)
        #expect(harness.gateway.summary.goaways == 1)
    }
}
