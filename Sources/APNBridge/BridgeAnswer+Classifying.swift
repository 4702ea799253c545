extension BridgeAnswer {
    /// Apple's reasons that say the bridge's own set-up is wrong, not the notification: its
    /// credentials (403), its topic (the tenant's configuration sets `apns-topic`), its
    /// request line (404, 405), or its token renewals (429 `TooManyProviderTokenUpdates`).
    /// Forwarding more would fail the same way, so the connection ends with status 10 and
    /// the bridge backs off (issue #24), instead of refusing every notification in turn.
    package static let bridgeFailureReasons: Set<String> = [
        "BadCertificate", "BadCertificateEnvironment", "ExpiredProviderToken", "Forbidden",
        "InvalidProviderToken", "MissingProviderToken", "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken",
        "BadTopic", "TopicDisallowed", "MissingTopic", "BadPath", "MethodNotAllowed",
        "TooManyProviderTokenUpdates",
    ]

    /// The answer for one HTTP/2 response: `status` and `reason` as Apple sent them,
    /// `timestampMilliseconds` its 410 `timestamp`, `nowSeconds` the time to use when a 410
    /// carries none.
    ///
    /// | Apple's answer | bridge answer | the binary client sees |
    /// |---|---|---|
    /// | 200 | `accepted` | nothing |
    /// | 410 `Unregistered`, `ExpiredToken` | `unregistered(since:)` | nothing; a feedback tuple |
    /// | a reason in ``bridgeFailureReasons`` | `bridgeFailure` | status 10 |
    /// | 500, 503 (after the provider's retries) | `bridgeFailure` | status 10 |
    /// | any other refusal | `refused(status(forReason:))` | status 8, 7, 4 or 1 |
    ///
    /// 429 `TooManyRequests` reaches here only after the provider's retries ran out: it
    /// is about the device's rate, so status 1 like Apple's other refusals.
    package static func classify(
        status: Int, reason: String?, timestampMilliseconds: Int64?, nowSeconds: Int64
    ) -> BridgeAnswer {
        if status == 200 { return .accepted }
        if status == 410 {
            return .unregistered(since: timestampMilliseconds.map { $0 / 1_000 } ?? nowSeconds)
        }
        if let reason, bridgeFailureReasons.contains(reason) { return .bridgeFailure }
        if status >= 500 { return .bridgeFailure }
        return .refused(Self.status(forReason: reason ?? ""))
    }
}
