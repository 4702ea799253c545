import APNSupport
import APN
import APNTLS
import Foundation
import APNMockGateway
import Synchronization
import Testing
import APNTestSupport
import APNTestTraits

/// `Provider` against the HTTP/2 mock gateway: both kinds of authentication, every answer
/// typed, and the faults of a real server (refusals, throttling, GOAWAY, resets, slow
/// answers), each notification ending in exactly one response.
@Suite("Provider against the HTTP/2 mock gateway", .timeLimit(.minutes(10)), .threadPerTest)
struct ProviderGatewayTests {
    @Test("token authentication: delivered, with every header recorded as sent")
    func tokenAuthentication() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        let id = UUID()
        let note = PushNotification().setAlertText("Hello").setPushType(.alert).setPriority(5)
            .setExpiry(1_900_000_000).setCollapseID("c-1").setAPNSID(id)
        let response = try await provider.send(note, to: ProviderFixture.device(1))
        #expect(response.status == 200)
        #expect(response.apnsID == id)
        #expect(response.uniqueID != nil)
        #expect(response.attempts == 1)
        let record = try #require(fixture.gateway.records.first)
        #expect(record.token == ProviderFixture.device(1).hexString)
        #expect(record.topic == ProviderFixture.topic)
        #expect(record.pushType == .alert)
        #expect(record.priority == 5)
        #expect(record.expiration == 1_900_000_000)
        #expect(record.collapseID == "c-1")
        #expect(String(decoding: record.payload, as: UTF8.self) == #"{"aps":{"alert":"Hello"}}"#)
        #expect(record.authentication == .token(keyID: ProviderFixture.keyID, teamID: ProviderFixture.teamID))
        await provider.shutdown()
    }

    @Test("certificate authentication: the topic comes from the certificate when none is set")
    func certificateAuthentication() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.certificateOptions())
        let response = try await provider.send(PushNotification().setBadge(2), to: ProviderFixture.device(2))
        #expect(response.isSuccess)
        let record = try #require(fixture.gateway.records.first)
        #expect(record.authentication == .certificate)
        #expect(record.topic == ProviderFixture.topic)
        await provider.shutdown()
    }

    @Test("sendMany: 2,000 devices, one response each in order; refusals typed; 410 with its timestamp")
    func sendMany() async throws {
        let since = Date(timeIntervalSince1970: 1_700_000_000.250)
        let fixture = try ProviderFixture { configuration in
            configuration.faults.rejectToken(ProviderFixture.device(7).hexString, reason: .badDeviceToken)
            configuration.faults.rejectToken(ProviderFixture.device(8).hexString, reason: .deviceTokenNotForTopic)
            configuration.faults.unregisterToken(ProviderFixture.device(9).hexString, since: since)
        }
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        let devices = (0..<2_000).map(ProviderFixture.device)
        let responses = await provider.send(PushNotification().setAlertText("many"), to: devices)
        #expect(responses.map(\.device) == devices)
        #expect(responses.filter(\.isSuccess).count == 1_997)
        #expect(responses[7].reason == .badDeviceToken)
        #expect(responses[7].status == 400)
        #expect(responses[7].error?.code == .rejected)
        #expect(responses[8].reason == .deviceTokenNotForTopic)
        #expect(responses[9].reason == .unregistered)
        #expect(responses[9].status == 410)
        #expect(responses[9].timestamp == since)
        #expect(fixture.gateway.recordCount == 1_997)
        #expect(Set(fixture.gateway.records.map(\.token)).count == 1_997)
        await provider.shutdown()
    }

    @Test("a slice of devices: one response each, numbered from the slice's start, across several runs; a refusal in place")
    func sendSlice() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.rejectToken(ProviderFixture.device(1_500).hexString, reason: .badDeviceToken)
        }
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        let devices = (0..<3_000).map(ProviderFixture.device)
        // 2,500 devices from index 300: three runs of the I/O thread's 1,024.
        let slice = devices[300..<2_800]
        let responses = await provider.send(PushNotification().setAlertText("slice"), to: slice)
        #expect(responses.count == 2_500)
        #expect(responses.map(\.device) == Array(slice))
        #expect(responses[1_200].reason == .badDeviceToken)
        #expect(responses.filter(\.isSuccess).count == 2_499)
        #expect(await provider.send(PushNotification().setAlertText("none"), to: devices[5..<5]).isEmpty)
        #expect(fixture.gateway.recordCount == 2_499)
        #expect(Set(fixture.gateway.records.map(\.token)) == Set(slice.map(\.hexString)).subtracting([devices[1_500].hexString]))
        await provider.shutdown()
    }

    @Test("send(_:to:each:): every device's response once, with its offset in the slice; returns after the last")
    func sendEach() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.rejectToken(ProviderFixture.device(1_100).hexString, reason: .badDeviceToken)
        }
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        let devices = (0..<2_200).map(ProviderFixture.device)
        let slice = devices[100..<2_200]
        let seen = Lock<[Int: ProviderResponse]>([:])
        let duplicates = Lock(0)
        await provider.send(PushNotification().setAlertText("each"), to: slice) { offset, response in
            let repeated = seen.withLock { $0.updateValue(response, forKey: offset) != nil }
            if repeated { duplicates.withLock { $0 += 1 } }
        }
        // Every response has come by the time send returns.
        let responses = seen.withLock { $0 }
        #expect(duplicates.withLock { $0 } == 0)
        #expect(responses.count == 2_100)
        #expect(responses.keys.sorted() == Array(0..<2_100))
        #expect(responses.allSatisfy { $0.value.device == slice[slice.startIndex + $0.key] })
        #expect(responses[1_000]?.reason == .badDeviceToken)
        #expect(responses.values.filter(\.isSuccess).count == 2_099)
        // A notification that cannot be sent: each device answered at once, nothing sent.
        let refused = Lock<[Int]>([])
        let big = PushNotification().setAlertText(String(repeating: "x", count: 5_000))
        await provider.send(big, to: Array(devices[0..<3])) { offset, response in
            #expect(response.error?.notificationError?.code == .payloadTooLarge)
            refused.withLock { $0.append(offset) }
        }
        #expect(refused.withLock { $0.sorted() } == [0, 1, 2])
        await provider.send(PushNotification().setAlertText("none"), to: devices[0..<0]) { _, _ in Issue.record("no device") }
        #expect(fixture.gateway.recordCount == 2_099)
        await provider.shutdown()
    }

    @Test("send(_:to:each:) cancelled: what was not answered is answered cancelled, and it returns")
    func sendEachCancelled() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.responseDelay = .seconds(30)
        }
        defer { _ = fixture.gateway.stop(timeout: .seconds(1)) }
        let provider = Provider(options: try fixture.tokenOptions())
        let codes = Lock<[ProviderError.Code?]>([])
        let task = Task {
            await provider.send(PushNotification().setAlertText("c"), to: (0..<3).map(ProviderFixture.device)) { _, response in
                codes.withLock { $0.append(response.error?.code) }
            }
        }
        _ = fixture.gateway.waitForSummary(timeout: .seconds(10)) { $0.connections >= 1 }
        task.cancel()
        await task.value
        #expect(codes.withLock { $0 } == [.cancelled, .cancelled, .cancelled])
        await provider.shutdown()
    }

    @Test("send throws the typed refusal; listeners by reason hear it")
    func throwsTyped() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.rejectToken(ProviderFixture.device(3).hexString, reason: .badDeviceToken)
        }
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        let heard = Lock<[Device]>([])
        provider.on(.badDeviceToken) { response in heard.withLock { $0.append(response.device) } }
        let error = await #expect(throws: ProviderError.self) {
            try await provider.send(PushNotification().setAlertText("x"), to: ProviderFixture.device(3))
        }
        #expect(error?.reason == .badDeviceToken)
        #expect(error?.status == 400)
        #expect(error?.apnsID != nil)
        await provider.shutdown()
        #expect(heard.withLock { $0 } == [ProviderFixture.device(3)])
    }

    @Test("429 and 503 are retried with a backoff until delivered; each notification recorded once")
    func retriesThrottling() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.throttle(afterAccepting: 10, refusing: 5)
            configuration.faults.failNextRequests(0)
        }
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.tokenOptions()
        options.maxConcurrentStreams = 1
        options.retryLimit = 10
        let provider = Provider(options: options)
        let devices = (0..<20).map(ProviderFixture.device)
        let responses = await provider.send(PushNotification().setAlertText("t"), to: devices)
        #expect(responses.allSatisfy { $0.isSuccess })
        #expect(responses.map(\.attempts).reduce(0, +) == 25)
        #expect(fixture.gateway.recordCount == 20)
        #expect(fixture.gateway.summary.reasons[.tooManyRequests] == 5)
        await provider.shutdown()
    }

    @Test("503 past the retry limit: retriesExhausted with the last reason")
    func retriesExhausted() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.failNextRequests(100, reason: .serviceUnavailable)
        }
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.tokenOptions()
        options.retryLimit = 2
        let provider = Provider(options: options)
        let response = await provider.send(PushNotification().setAlertText("x"), to: [ProviderFixture.device(1)])[0]
        #expect(response.error?.code == .retriesExhausted)
        #expect(response.reason == .serviceUnavailable)
        #expect(response.attempts == 3)
        #expect(fixture.gateway.recordCount == 0)
        await provider.shutdown()
    }

    @Test("GOAWAY: the streams the server did not process go out again on a new connection, none twice")
    func goaway() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.goawayAfterRequests = 50
        }
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        let devices = (0..<500).map(ProviderFixture.device)
        let responses = await provider.send(PushNotification().setAlertText("g"), to: devices)
        #expect(responses.allSatisfy { $0.isSuccess }, "\(responses.filter { !$0.isSuccess }.prefix(3))")
        #expect(fixture.gateway.recordCount == 500)
        #expect(Set(fixture.gateway.records.map(\.token)).count == 500)
        #expect(fixture.gateway.summary.connections >= 2)
        // The refused ones went out again (the path under test ran).
        #expect(responses.contains { $0.attempts >= 2 })
        await provider.shutdown()
    }

    @Test("a reset with streams open: those fail (maybe delivered, never resent), the rest are delivered")
    func reset() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.resetAfterRequests = 100
        }
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        let devices = (0..<400).map(ProviderFixture.device)
        let responses = await provider.send(PushNotification().setAlertText("r"), to: devices)
        let delivered = responses.filter(\.isSuccess)
        let failed = responses.filter { !$0.isSuccess }
        #expect(!failed.isEmpty)
        #expect(failed.allSatisfy { $0.error?.code == .connectionFailed }, "\(failed.prefix(3))")
        #expect(delivered.count + failed.count == 400)
        // Every delivered one was recorded once; a failed one at most once (maybe processed).
        let recorded = fixture.gateway.records.map(\.token)
        #expect(Set(recorded).count == recorded.count)
        #expect(Set(delivered.map(\.device.hexString)).isSubset(of: Set(recorded)))
        await provider.shutdown()
    }

    @Test("after a reset the requests still waiting go out on a new connection at once, with no timer to wake the provider (a clock that never moves)")
    func reconnectAfterResetNeedsNoTimer() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.resetAfterRequests = 300
        }
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.tokenOptions()
        // Large requests, so the provider is usually writing when the reset comes and finds
        // it on a write. On a manual clock no deadline ever passes, so only the reset itself
        // can bring the next connection (it once waited for the next request timeout).
        options.clock = .manual(ManualClock())
        let provider = Provider(options: options)
        let devices = (0..<5_000).map(ProviderFixture.device)
        let note = PushNotification().setAlertText(String(repeating: "x", count: 3_000))
        let responses = await provider.send(note, to: devices)
        #expect(responses.count == 5_000)
        #expect(responses.filter(\.isSuccess).count > 300, "delivered past the first reset (at the 300th request)")
        #expect(fixture.gateway.summary.connections >= 2)
        await provider.shutdown()
    }

    @Test("a slow server: requestTimeout ends the wait with timedOut (the stream is reset; not observable at the mock)")
    func timeout() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.responseDelay = .seconds(30)
        }
        defer { _ = fixture.gateway.stop(timeout: .seconds(1)) }
        var options = try fixture.tokenOptions()
        options.requestTimeout = .milliseconds(300)
        let provider = Provider(options: options)
        let response = await provider.send(PushNotification().setAlertText("slow"), to: [ProviderFixture.device(1)])[0]
        #expect(response.error?.code == .timedOut)
        await provider.shutdown()
    }

    @Test("cancelling the awaiting task returns cancelled promptly")
    func cancellation() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.responseDelay = .seconds(30)
        }
        defer { _ = fixture.gateway.stop(timeout: .seconds(1)) }
        let provider = Provider(options: try fixture.tokenOptions())
        let task = Task {
            await provider.send(PushNotification().setAlertText("c"), to: [ProviderFixture.device(1)])
        }
        _ = fixture.gateway.waitForSummary(timeout: .seconds(10)) { $0.connections >= 1 }
        task.cancel()
        let responses = await task.value
        #expect(responses[0].error?.code == .cancelled)
        await provider.shutdown()
    }

    @Test("ExpiredProviderToken: the token is renewed once it may be and the request sent again")
    func expiredProviderToken() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.tokenMaxAge = .seconds(30 * 60)
        }
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.tokenOptions()
        options.tokenRefreshInterval = .seconds(60 * 60)
        let provider = Provider(options: options)
        let renewals = Lock(0)
        provider.on { event in
            if case .tokenRenewed = event { renewals.withLock { $0 += 1 } }
        }
        _ = try await provider.send(PushNotification().setAlertText("1"), to: ProviderFixture.device(1))
        fixture.clock.advance(by: 31 * 60)
        let response = try await provider.send(PushNotification().setAlertText("2"), to: ProviderFixture.device(2))
        #expect(response.attempts == 2)
        #expect(fixture.gateway.summary.reasons[.expiredProviderToken] == 1)
        await provider.shutdown()
        #expect(renewals.withLock { $0 } == 2)
    }

    @Test("a bad key, a missing topic, an oversized payload: typed, nothing sent")
    func localRefusals() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.tokenOptions()
        options.authentication = .token(keyID: "K", teamID: "T", key: .data(Array("not a key".utf8)))
        let badKey = Provider(options: options)
        let keyError = await badKey.send(PushNotification(), to: [ProviderFixture.device(1)])[0].error
        #expect(keyError?.code == .authentication)
        await badKey.shutdown()

        var noTopic = try fixture.tokenOptions()
        noTopic.topic = nil
        let provider = Provider(options: noTopic)
        let topicError = await provider.send(PushNotification(), to: [ProviderFixture.device(1)])[0].error
        #expect(topicError?.code == .invalidNotification)
        let big = PushNotification().setAlertText(String(repeating: "x", count: 5_000)).setTopic("t")
        let sizeError = await provider.send(big, to: [ProviderFixture.device(1)])[0].error
        #expect(sizeError?.notificationError?.code == .payloadTooLarge)
        await provider.shutdown()
        #expect(fixture.gateway.recordCount == 0)
    }

    @Test("no server: connectionFailed after the connection retry limit, for every waiting notification")
    func noServer() async throws {
        let fixture = try ProviderFixture()
        var options = try fixture.tokenOptions()
        _ = fixture.gateway.stop()
        options.connectionRetryLimit = 2
        let provider = Provider(options: options)
        let responses = await provider.send(PushNotification(), to: (0..<3).map(ProviderFixture.device))
        #expect(responses.allSatisfy { $0.error?.code == .connectionFailed })
        await provider.shutdown()
    }

    @Test("maxConnections: a second connection opens when the first is full")
    func pool() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.maxConcurrentStreams = 10
            configuration.faults.responseDelay = .milliseconds(50)
        }
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.tokenOptions()
        options.maxConnections = 2
        let provider = Provider(options: options)
        let events = Lock<[String]>([])
        provider.on { event in
            if case .failed = event { return }
            events.withLock { $0.append("\(event)") }
        }
        let responses = await provider.send(PushNotification().setAlertText("p"), to: (0..<100).map(ProviderFixture.device))
        #expect(responses.allSatisfy { $0.isSuccess })
        #expect(
            Set(fixture.gateway.records.map(\.connection)).count == 2,
            "\(events.withLock { $0 }) \(fixture.gateway.summary)")
        await provider.shutdown()
    }

    @Test("every reason Apple documents reaches the caller typed, with its status; retryable ones after the retries")
    func everyReasonTyped() async throws {
        let reasons = ProviderReason.documented
        let fixture = try ProviderFixture { configuration in
            for (index, reason) in reasons.enumerated() {
                configuration.faults.rejectToken(ProviderFixture.device(index).hexString, reason: reason)
            }
        }
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.tokenOptions()
        options.retryLimit = 1
        let provider = Provider(options: options)
        let responses = await provider.send(
            PushNotification().setAlertText("r"), to: reasons.indices.map(ProviderFixture.device))
        for (reason, response) in zip(reasons, responses) {
            #expect(response.reason == reason)
            #expect(response.error?.status == reason.status)
            let retried = [429, 500, 503].contains(reason.status!) && reason != .tooManyProviderTokenUpdates
            #expect(response.error?.code == (retried ? .retriesExhausted : .rejected), "\(reason)")
            // ExpiredProviderToken is not retried either: the token is younger than 20 minutes.
            #expect(response.attempts == (retried ? 2 : 1), "\(reason)")
        }
        #expect(fixture.gateway.recordCount == 0)
        await provider.shutdown()
    }

    @Test("an existing token is sent as it is")
    func existingToken() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.mockOptions()
        let token = try JSONWebToken.sign(
            ProviderTokenClaims(
                keyID: ProviderFixture.keyID, teamID: ProviderFixture.teamID,
                issuedAt: Int64(fixture.clock.now.timeIntervalSince1970)),
            with: fixture.signingKey)
        options.authentication = .existingToken(token)
        options.topic = ProviderFixture.topic
        let provider = Provider(options: options)
        let response = try await provider.send(PushNotification().setAlertText("e"), to: ProviderFixture.device(1))
        #expect(response.isSuccess)
        await provider.shutdown()
    }

    @Test("a token is renewed once it is tokenRefreshInterval old, before Apple calls it expired")
    func proactiveRenewal() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.tokenOptions()
        options.tokenRefreshInterval = .seconds(25 * 60)
        let provider = Provider(options: options)
        let issued = Lock<[Int64]>([])
        provider.on { event in
            if case .tokenRenewed(let issuedAt) = event { issued.withLock { $0.append(issuedAt) } }
        }
        _ = try await provider.send(PushNotification().setAlertText("1"), to: ProviderFixture.device(1))
        fixture.clock.advance(by: 24 * 60)
        _ = try await provider.send(PushNotification().setAlertText("2"), to: ProviderFixture.device(2))
        fixture.clock.advance(by: 2 * 60)
        let third = try await provider.send(PushNotification().setAlertText("3"), to: ProviderFixture.device(3))
        #expect(third.attempts == 1)
        await provider.shutdown()
        let times = issued.withLock { $0 }
        #expect(times.count == 2)
        #expect(times.count == 2 && times[1] - times[0] == 26 * 60)
        #expect(fixture.gateway.summary.reasons.isEmpty)
    }

    @Test("a server that does not speak HTTP/2 (the binary gateway): connectionFailed naming ALPN h2")
    func notHTTP2() async throws {
        let binary = try MockGateway(configuration: MockGateway.Configuration(requiresClientCertificate: false))
        try binary.start()
        defer { _ = binary.stop() }
        var options = Provider.Options()
        options.authentication = .existingToken("x")
        options.topic = "t"
        options.address = "127.0.0.1"
        options.port = binary.gatewayPort
        options.ca = [.data(Array(try binary.certificateAuthority.certificate.pem().utf8))]
        options.connectionRetryLimit = 1
        let provider = Provider(options: options)
        let response = await provider.send(PushNotification(), to: [ProviderFixture.device(1)])[0]
        #expect(response.error?.code == .connectionFailed)
        #expect(response.error?.message.contains("ALPN h2") == true, "\(String(describing: response.error))")
        await provider.shutdown()
    }

    @Test("header values that cannot be sent are refused before sending; the provider goes on")
    func badHeaderValues() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        for note in [
            PushNotification().setCollapseID("x "), PushNotification().setTopic("com.example.app\n"),
            PushNotification().setCollapseID("a\u{0}b"),
        ] {
            let response = await provider.send(note, to: [ProviderFixture.device(1)])[0]
            #expect(response.error?.code == .invalidNotification)
        }
        let fine = try await provider.send(PushNotification().setAlertText("ok"), to: ProviderFixture.device(2))
        #expect(fine.isSuccess)
        await provider.shutdown()

        var options = try fixture.mockOptions()
        options.authentication = .existingToken("eyJ.token.with-newline\n")
        options.topic = ProviderFixture.topic
        let withNewline = Provider(options: options)
        let refused = await withNewline.send(PushNotification(), to: [ProviderFixture.device(3)])[0]
        #expect(refused.error?.code == .authentication)
        await withNewline.shutdown()
        #expect(fixture.gateway.recordCount == 1)
    }

    @Test("PING keepalive: an idle connection is pinged every pingInterval and outlives the server's idle timeout")
    func keepalive() async throws {
        // The server's idle timeout is real time, so the margin is wide: a PING every 100 ms
        // against a 2 s timeout, which a loaded machine delaying the provider's thread by a
        // second or more still keeps. (The PING schedule itself is tested on the manual
        // clock: idlePingIsNoStall, hungServer.)
        let fixture = try ProviderFixture { configuration in
            configuration.faults.idleTimeout = .seconds(2)
        }
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.tokenOptions()
        options.pingInterval = .milliseconds(100)
        let provider = Provider(options: options)
        let (pings, continuation) = AsyncStream.makeStream(of: String.self)
        let goaways = Lock(0)
        provider.on { event in
            switch event {
            case .pingAnswered(let peer): continuation.yield(peer)
            case .goaway: goaways.withLock { $0 += 1 }
            default: break
            }
        }
        _ = try await provider.send(PushNotification().setAlertText("k"), to: ProviderFixture.device(1))
        // Thirty answered PINGs take at least 3 s: longer than the server's idle timeout.
        var answered = 0
        for await _ in pings {
            answered += 1
            if answered == 30 { break }
        }
        let again = try await provider.send(PushNotification().setAlertText("k2"), to: ProviderFixture.device(2))
        #expect(again.isSuccess)
        #expect(goaways.withLock { $0 } == 0)
        #expect(Set(fixture.gateway.records.map(\.connection)).count == 1)
        #expect(fixture.gateway.summary.goaways == 0)
        await provider.shutdown()
    }

    @Test("an idle PING with the default pingInterval (60 s) and pingTimeout (10 s) is no stalled write: the connection stays")
    func idlePingIsNoStall() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let clock = ManualClock()
        var options = try fixture.tokenOptions()
        options.clock = .manual(clock)
        options.pingInterval = .seconds(60)
        options.pingTimeout = .seconds(10)
        let provider = Provider(options: options)
        let (signals, continuation) = AsyncStream.makeStream(of: String.self)
        provider.on { event in
            switch event {
            case .pingAnswered: continuation.yield("ping")
            case .disconnected(_, let error): continuation.yield("disconnected \(String(describing: error))")
            default: break
            }
        }
        _ = try await provider.send(PushNotification().setAlertText("a"), to: ProviderFixture.device(1))
        // Each minute of idleness on the manual clock sends a PING; the gateway answers it
        // in real time, and only its answer (or the connection's end) moves the test on.
        var seen: [String] = []
        var iterator = signals.makeAsyncIterator()
        for _ in 0..<3 {
            clock.advance(by: .seconds(60))
            guard let signal = await iterator.next() else { break }
            seen.append(signal)
            if signal.hasPrefix("disconnected") { break }
        }
        #expect(seen == ["ping", "ping", "ping"])
        let again = try await provider.send(PushNotification().setAlertText("b"), to: ProviderFixture.device(2))
        #expect(again.isSuccess)
        #expect(Set(fixture.gateway.records.map(\.connection)).count == 1)
        await provider.shutdown()
    }

    @Test("a hung server (silent, PINGs unanswered): with requests waiting, PINGed after pingTimeout and given up after another; what it held fails as maybe delivered, the next send goes out on a new connection")
    func hungServer() async throws {
        let fixture = try ProviderFixture { configuration in
            configuration.faults.stallAfterRequests = 2
        }
        defer { _ = fixture.gateway.stop() }
        var options = try fixture.tokenOptions()
        // No idle PING in this test: the one that finds the hung server is sent because
        // requests waited `pingTimeout` with nothing received.
        options.pingInterval = .seconds(3600)
        // Long enough that a loaded machine answers the healthy requests and PINGs in time.
        options.pingTimeout = .seconds(1)
        let provider = Provider(options: options)
        let (ends, continuation) = AsyncStream.makeStream(of: ProviderError?.self)
        provider.on { event in
            if case .disconnected(_, let error) = event { continuation.yield(error) }
        }
        let first = try await provider.send(PushNotification().setAlertText("1"), to: ProviderFixture.device(1))
        #expect(first.isSuccess)
        // The connection's second request hangs it: no answer, no PING ACK.
        let held = await provider.send(PushNotification().setAlertText("2"), to: [ProviderFixture.device(2)])[0]
        #expect(held.error?.code == .connectionFailed, "\(held)")
        var iterator = ends.makeAsyncIterator()
        let end = await iterator.next()
        #expect(end??.message.contains("PING") == true, "\(String(describing: end))")
        // A new connection (whose first request the fault lets through) takes the next one.
        let third = try await provider.send(PushNotification().setAlertText("3"), to: ProviderFixture.device(3))
        #expect(third.isSuccess)
        #expect(fixture.gateway.summary.stalls == 1)
        #expect(Set(fixture.gateway.records.map(\.connection)).count == 2)
        #expect(fixture.gateway.records.map(\.token) == [ProviderFixture.device(1).hexString, ProviderFixture.device(3).hexString])
        await provider.shutdown()
    }

    @Test("after close: refused with shutDown")
    func afterClose() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let provider = Provider(options: try fixture.tokenOptions())
        await provider.shutdown()
        let response = await provider.send(PushNotification(), to: [ProviderFixture.device(1)])[0]
        #expect(response.error?.code == .shutDown)
    }
}
