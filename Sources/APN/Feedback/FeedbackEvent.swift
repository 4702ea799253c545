/// node-apn's feedback events, delivered in order on the feedback poller's callback queue.
public enum FeedbackEvent: Sendable {
    /// Entries from the service: a batch (with ``Feedback/Options/batchFeedback``, the
    /// default; the last batch of a connection may be empty) or a single entry.
    case feedback([Feedback.Entry])
    /// A connection failed or broke; polling goes on at the next interval.
    case feedbackError(APNError)
    /// The credentials are unusable: polling stops.
    case error(APNError)
}
