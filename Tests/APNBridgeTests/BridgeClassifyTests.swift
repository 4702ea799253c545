import APNBridge
import APNWire
import Testing

/// Apple's HTTP/2 answers, as the bridge reads them: the table in docs/PROTOCOL.md §8.
@Suite("Bridge: Apple's answers classified")
struct BridgeClassifyTests {
    static let rows: [(status: Int, reason: String?, answer: BridgeAnswer)] = [
        (200, nil, .accepted),
        (410, "Unregistered", .unregistered(since: 1_700_000_000)),
        (410, "ExpiredToken", .unregistered(since: 1_700_000_000)),
        (400, "BadDeviceToken", .refused(.invalidToken)),
        (400, "DeviceTokenNotForTopic", .refused(.invalidToken)),
        (400, "MissingDeviceToken", .refused(.invalidToken)),
        (413, "PayloadTooLarge", .refused(.invalidPayloadSize)),
        (400, "PayloadEmpty", .refused(.missingPayload)),
        (400, "BadExpirationDate", .refused(.processingError)),
        (400, "BadPriority", .refused(.processingError)),
        (400, "BadCollapseId", .refused(.processingError)),
        (429, "TooManyRequests", .refused(.processingError)),
        (400, "SomeReasonAppleAddsLater", .refused(.processingError)),
        (400, nil, .refused(.processingError)),
        (403, "InvalidProviderToken", .bridgeFailure),
        (403, "ExpiredProviderToken", .bridgeFailure),
        (403, "MissingProviderToken", .bridgeFailure),
        (403, "BadCertificate", .bridgeFailure),
        (403, "BadCertificateEnvironment", .bridgeFailure),
        (403, "Forbidden", .bridgeFailure),
        (400, "TopicDisallowed", .bridgeFailure),
        (400, "BadTopic", .bridgeFailure),
        (400, "MissingTopic", .bridgeFailure),
        (404, "BadPath", .bridgeFailure),
        (405, "MethodNotAllowed", .bridgeFailure),
        (429, "TooManyProviderTokenUpdates", .bridgeFailure),
        (500, "InternalServerError", .bridgeFailure),
        (503, "ServiceUnavailable", .bridgeFailure),
        (503, "Shutdown", .bridgeFailure),
    ]

    @Test("each answer of Apple's", arguments: rows.indices)
    func classified(_ index: Int) {
        let row = Self.rows[index]
        let answer = BridgeAnswer.classify(
            status: row.status, reason: row.reason, timestampMilliseconds: 1_700_000_000_123, nowSeconds: 5)
        #expect(answer == row.answer, "\(row.status) \(row.reason ?? "no reason")")
    }

    @Test("a 410 without a timestamp takes the time of the answer")
    func unregisteredWithoutTimestamp() {
        #expect(BridgeAnswer.classify(status: 410, reason: "Unregistered", timestampMilliseconds: nil, nowSeconds: 42)
            == .unregistered(since: 42))
    }
}
