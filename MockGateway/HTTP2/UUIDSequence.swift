import APNWire

/// Makes the UUIDs a connection answers with (lowercase, version 4 and RFC 9562 variant
/// bits set), cheaply: 64 random bits drawn once per connection, then a counter that
/// starts at a random value. Unique within the connection and, with overwhelming
/// probability, across connections; not unpredictable, which an `apns-id` need not be.
package struct UUIDSequence {
    private let high: UInt64
    private var low: UInt64

    package init() {
        var random = SystemRandomNumberGenerator()
        // Version 4 in bits 12–15 of the third group.
        high = random.next() & ~0xF000 | 0x4000
        low = random.next()
    }

    /// The next UUID.
    package mutating func next() -> String {
        nextID().text
    }

    /// The next UUID as an answer's id, not yet text.
    mutating func nextID() -> AnswerID {
        low &+= 1
        // Variant 0b10 in the top bits of the fourth group.
        return AnswerID(high: high, low: low & ~(0xC000 << 48) | (0x8000 << 48))
    }
}
