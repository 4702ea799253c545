/// Bytes as a dictionary key, hashed in one pass. `[UInt8]`'s own `Hashable` feeds the
/// hasher one byte at a time, about 80 instructions a byte: a device token cost some 2,500
/// to look up, a notification's content (``ResendKey``) some 25,000.
package struct BytesKey: Hashable, Sendable {
    /// The bytes.
    package let bytes: [UInt8]

    /// The key of `bytes`.
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package func hash(into hasher: inout Hasher) {
        Self.hash(bytes, into: &hasher)
    }

    /// Feeds `bytes` and their count to `hasher` in one call (the count, so that the
    /// fields of a key hashed one after another cannot trade bytes).
    package static func hash(_ bytes: [UInt8], into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
