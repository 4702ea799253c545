/// How fast a connection may write once rejections have been seen: the resend waste bound.
///
/// Every rejection ends the connection, and the gateway throws away everything written
/// after the rejected notification, which the session must then send again. A client that
/// writes as fast as the socket takes has written `rate × answer time` more by the time the
/// error response comes back: at 2 M/s and a 10 ms round trip, 20,000 notifications resent
/// per rejection; with one bad token in a thousand, every notification written forty times
/// over, and copies resent after a silent close circulating long enough to meet the next
/// one. Writing faster than the gateway can let a connection live gains nothing.
///
/// So, once error responses have shown how long the gateway takes to answer (`answer`) and
/// how many notifications a connection typically carries before one is rejected (`run`),
/// a connection writes at most `window` notifications within any `answer` span: twice the
/// typical run, so a connection that ends at its typical rejection has thrown away about as
/// much as it carried. The window doubles with every `answer` span the connection lives
/// (TCP's slow start: a run of good tokens is soon written as fast as before), and nothing
/// is paced until a rejection has been seen.
package struct AnswerPacing: Sendable {
    /// The smoothed time from a notification's write to its error response, in nanoseconds;
    /// 0 until one was measured.
    package private(set) var answerNanos: Int64 = 0
    /// The smoothed number of notifications a connection wrote before the rejected one; 0
    /// until a rejection was seen.
    package private(set) var typicalRun = 0

    package init() {}

    /// The smallest window: small runs (a burst of bad tokens) must not slow a connection
    /// to a crawl, and the waste of a thousand is small.
    package static let minimumWindow = 1_000

    /// An error response named a written frame `answerNanos` after the socket took it.
    /// `run`: how many notifications the connection wrote before it, when it rejected a
    /// notification (a marker's or a status-10 answer measures the time only).
    package mutating func observe(answerNanos sample: Int64, run: Int?) {
        if sample > 0 {
            // A shorter answer is taken at once, a longer one by 1/8 (as TCP smooths its
            // round trip): the long ones are mostly the gateway's backlog — the waste this
            // pacing exists to avoid — and one slow answer must not slow the next thousand.
            answerNanos = answerNanos == 0 || sample < answerNanos ? sample : answerNanos + (sample - answerNanos) / 8
        }
        if let run {
            typicalRun = typicalRun == 0 ? max(run, 1) : typicalRun + (run - typicalRun) / 4
        }
    }

    /// The most notifications a connection established `elapsedNanos` ago may have written
    /// within the last answer span; nil: no limit (nothing measured yet).
    package func window(connectedForNanos elapsedNanos: Int64) -> Int? {
        guard answerNanos > 0, typicalRun > 0 else { return nil }
        let spans = elapsedNanos / answerNanos
        // Past 20 doublings the window is a million times the run: effectively unpaced.
        guard spans < 20 else { return nil }
        return max(Self.minimumWindow, 2 * typicalRun) << Int(spans)
    }

    /// When the window next doubles for a connection established at `connectedAt`.
    package func nextDoubling(connectedAt: Timestamp, now: Timestamp) -> Timestamp? {
        guard answerNanos > 0 else { return nil }
        let spans = (now.nanoseconds &- connectedAt.nanoseconds) / answerNanos
        return connectedAt.adding(nanoseconds: (spans + 1) &* answerNanos)
    }
}

extension GatewaySession {
    /// The paced window for the current connection now; nil: unpaced.
    func pacingWindow(_ now: Timestamp) -> Int? {
        guard configuration.pacesAfterRejections else { return nil }
        return pacing.window(connectedForNanos: now.nanoseconds &- connectedAt.nanoseconds)
    }

    /// Entries written or encoded on this connection less than an answer span ago (or not
    /// yet taken): what counts against the paced window.
    mutating func unansweredCount(_ now: Timestamp) -> Int {
        stream.answeredPrefix = answeredPrefix(now)
        return sent.count - stream.answeredPrefix
    }

    /// How many of the written entries were taken at least an answer span before `now`.
    func answeredPrefix(_ now: Timestamp) -> Int {
        var prefix = min(stream.answeredPrefix, takenCount)
        while prefix < takenCount, sent[prefix].writtenAt.adding(nanoseconds: pacing.answerNanos) <= now { prefix += 1 }
        return prefix
    }

    /// Whether one more entry may be encoded now (always, unpaced).
    mutating func withinPacedWindow(_ now: Timestamp) -> Bool {
        guard let window = pacingWindow(now) else { return true }
        return unansweredCount(now) < window
    }

    /// While the paced window holds back pending entries: when it opens again — the oldest
    /// unanswered entry's span ends, or the window doubles.
    func pacingDeadline(_ now: Timestamp) -> Timestamp? {
        guard !pending.isEmpty, !awaitingMarker, let window = pacingWindow(now) else { return nil }
        let prefix = answeredPrefix(now)
        guard sent.count - prefix >= window else { return nil }
        let doubling = pacing.nextDoubling(connectedAt: connectedAt, now: now)
        let ageOut = prefix < takenCount ? sent[prefix].writtenAt.adding(nanoseconds: pacing.answerNanos) : nil
        return earliest(ageOut, doubling)
    }
}
