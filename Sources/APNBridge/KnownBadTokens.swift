package import APNWire

/// The device tokens one tenant's upstream answered `400 BadDeviceToken` for, so that a later
/// notification to one of them is refused at once (status 8) without a request: Apple's
/// binary gateway refused an invalid token on sight, and a token Apple called bad stays bad
/// (#40 item 4).
///
/// Bounded in time (a token is kept ``retention`` after its answer) and in count (at
/// ``capacity`` the oldest makes room). Time is an input, as elapsed since an origin the
/// driver chooses; nothing here reads a clock. A value type with no locks: the tenant's
/// state keeps it under its own lock.
package struct KnownBadTokens: Sendable {
    /// How long a token is kept by default: a day.
    package static let defaultRetention: Duration = .seconds(86_400)
    /// How many tokens are kept by default (32-byte tokens: a few megabytes).
    package static let defaultCapacity = 100_000

    /// How long after its answer a token is forgotten.
    package let retention: Duration
    /// How many tokens are kept at most.
    package let capacity: Int

    /// Keyed in one pass over the token's bytes (``BytesKey``): looked up for every
    /// notification once a bad token is known.
    private var answeredAt: [BytesKey: Duration] = [:]
    /// Tokens in the order they were answered, for dropping by age and count; a token
    /// answered again lingers here once more, and only its newest time counts.
    private var order = FIFO<Answered>()

    /// One of ``order``: a struct, not a tuple (a queue of tuples goes through the runtime's
    /// generic tuple value witnesses).
    private struct Answered {
        let token: BytesKey
        let at: Duration
    }

    /// An empty set; `capacity` 0 keeps nothing.
    package init(retention: Duration = defaultRetention, capacity: Int = defaultCapacity) {
        precondition(capacity >= 0, "capacity must not be negative")
        self.retention = retention
        self.capacity = capacity
    }

    /// Tokens kept.
    package var count: Int { answeredAt.count }

    /// The upstream answered BadDeviceToken for `token` at `now`.
    package mutating func insert(_ token: [UInt8], now: Duration) {
        guard capacity > 0 else { return }
        expire(now: now)
        let key = BytesKey(token)
        if answeredAt[key] == nil, answeredAt.count >= capacity { dropOldest() }
        answeredAt[key] = now
        order.append(Answered(token: key, at: now))
    }

    /// The binary status to refuse a notification to `token` with at `now`: 8 (invalid
    /// token) when the upstream called it bad within the retention, else nil.
    package func refusal(for token: [UInt8], now: Duration) -> StatusCode? {
        // Most tenants never see a bad token: skip hashing the token then.
        guard !answeredAt.isEmpty, let at = answeredAt[BytesKey(token)], now - at < retention else { return nil }
        return .invalidToken
    }

    /// Drops the tokens answered `retention` or longer before `now`.
    package mutating func expire(now: Duration) {
        while let front = order.first, now - front.at >= retention {
            order.removeFirst()
            if answeredAt[front.token] == front.at { answeredAt[front.token] = nil }
        }
    }

    private mutating func dropOldest() {
        while let front = order.first {
            order.removeFirst()
            if answeredAt[front.token] == front.at {
                answeredAt[front.token] = nil
                return
            }
        }
    }
}
