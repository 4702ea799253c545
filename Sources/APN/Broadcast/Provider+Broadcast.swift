public import APNCore

extension Provider {
    /// Broadcasts `notification` to everyone subscribed to `channel` (iOS 18's broadcast
    /// push: `POST /4/broadcasts/apps/<bundle id>`), on this provider's connections — the
    /// host Apple's text names (`api.push.apple.com`, `api.sandbox.push.apple.com`). Apple's
    /// samples show `api-broadcast(.sandbox).push.apple.com` instead: a provider whose
    /// ``ServiceAccess/address`` is that host sends there.
    ///
    /// ```swift
    /// let update = PushNotification()
    /// update.event = "update"
    /// update.contentState = ["score": 3]
    /// update.timestamp = 1_700_000_000
    /// let response = try await provider.broadcast(update, to: channel)
    /// print(response.uniqueID ?? "")
    /// ```
    ///
    /// Apple's rules are checked before sending: a Live Activity push (a notification
    /// without a ``Notification/pushType`` is sent as one; another type is refused), never
    /// a start (``Notification/event`` "start": a broadcast cannot start an activity),
    /// expiration 0 when the channel is known to store nothing
    /// (``MessageStoragePolicy/noMessageStored``), priority 10, 5 or 1, at most 5,120 bytes.
    /// ``Notification/apnsID`` becomes the `apns-request-id`; `apns-topic` and
    /// `apns-collapse-id` are not sent. 429 and 5xx are retried as for notifications.
    ///
    /// - Parameters:
    ///   - bundleID: The app's bundle id; `nil`: the notification's ``Notification/topic``,
    ///     else ``Options/topic``, either without a `.push-type.` suffix.
    /// - Throws: ``ProviderError``: Apple's refusal (``ProviderError/reason``, e.g.
    ///   `ChannelNotRegistered`, and ``ProviderError/requestID``), a broadcast that breaks
    ///   the rules above (``ProviderError/Code/invalidNotification``), or a failure as for
    ///   ``send(_:to:)-(_,Device)``.
    @discardableResult
    public func broadcast(
        _ notification: Notification, to channel: BroadcastChannel, bundleID: String? = nil
    ) async throws(ProviderError) -> BroadcastResponse {
        let template = try BroadcastRequests.broadcast(
            notification, to: channel,
            bundleID: try BroadcastRequests.bundleID(bundleID, topic: notification.topic ?? options.topic),
            authority: options.host)
        let response = await exchange(template)
        if let error = response.error { throw error }
        return BroadcastResponse(
            channel: channel, status: response.status ?? 200, requestID: response.exchange?.requestID,
            uniqueID: response.uniqueID, attempts: response.attempts)
    }

    /// Sends one exchange (a request naming no device) and returns its response, which
    /// says what became of it; a cancelled task withdraws it as it does a notification.
    func exchange(_ template: ProviderRequest.Template) async -> ProviderResponse {
        let cancellation = ProviderCancellation()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let target = ProviderReplyTarget(cancellation: cancellation) { _, response in
                    continuation.resume(returning: response)
                }
                inbox.post(.send([ProviderSubmission(request: template.exchangeRequest, index: 0)], target))
            }
        } onCancel: {
            cancellation.cancel()
            inbox.post(.cancel(cancellation))
        }
    }
}
