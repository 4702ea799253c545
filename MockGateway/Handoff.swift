/// Carries a non-`Sendable` value (a ``TLSConnection`` or a ``TLSListener``) from the
/// thread that created it to the one thread that will own it.
///
/// `@unchecked Sendable` is sound because of how it is used: the creating thread stores
/// the value, starts the receiving thread and never touches the value again; the receiving
/// thread calls ``take()`` once, first thing, and from then on is its only user. Thread
/// start is a happens-before edge, so the receiver sees the value fully formed.
final class Handoff<Value>: @unchecked Sendable {
    private var value: Value?

    init(_ value: Value) {
        self.value = value
    }

    /// Hands the value over; called once, by the receiving thread.
    func take() -> Value {
        guard let value else { preconditionFailure("a Handoff was taken twice") }
        self.value = nil
        return value
    }
}
