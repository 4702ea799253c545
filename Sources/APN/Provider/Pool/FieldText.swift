import Foundation

/// A response field's value as received, made a string only when one is asked for: 36
/// bytes — a UUID's text, which Apple's `apns-unique-id` is — are kept inline, any other
/// length as a string. Apple answers every request in the development environment with an
/// `apns-unique-id`, and a string made of each cost an allocation, a UTF-8 check and a
/// release (about 500 instructions an answer) that a bridge forwarding thousands a second
/// never reads. An `apns-id` is kept so too, and read as a UUID only when asked for.
///
/// A struct of plain words and a reference that is nil for a UUID's 36 bytes, not an enum
/// of the two, with its own ``absent`` state, not wrapped in an optional: an enum with two
/// payloads (and then an optional of a struct) was copied and destroyed through the
/// runtime's value witnesses, switching on its case (about 400 instructions an answer,
/// for the two fields a response carries).
struct FieldText: Sendable, Equatable {
    /// A value of another length than 36 bytes (one of Apple's never is).
    private final class Other: Sendable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// A 36-byte value's bytes, in order, in four words and a half (zeros when ``other``
    /// holds the value).
    private let words: (UInt64, UInt64, UInt64, UInt64, UInt32)
    /// Whether there is a value (false: ``absent``).
    let isPresent: Bool
    private let other: Other?

    /// No value: the field did not come. (Made where it is used, not a stored global read
    /// through its lazy initializer and copied.)
    static var absent: FieldText { FieldText() }

    private init() {
        words = (0, 0, 0, 0, 0)
        isPresent = false
        other = nil
    }

    /// The value `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        isPresent = true
        guard bytes.count == 36, let base = bytes.baseAddress else {
            words = (0, 0, 0, 0, 0)
            other = Other(String(decoding: bytes, as: UTF8.self))
            return
        }
        let raw = UnsafeRawPointer(base)
        words = (
            raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self),
            raw.loadUnaligned(fromByteOffset: 32, as: UInt32.self)
        )
        other = nil
    }

    /// The value `text`.
    init(_ text: String) {
        var text = text
        self = text.withUTF8 { FieldText($0) }
    }

    /// A UUID's text as Apple writes it (lowercase, hyphenated, 36 bytes: kept inline): an
    /// `apns-id` given as a UUID.
    init(uuid: UUID) {
        self.init(uuid.apnsText)
    }

    /// Calls `body` with the value's bytes.
    private func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if var text = other?.text { return text.withUTF8(body) }
        var words = words
        return withUnsafeBytes(of: &words) {
            body(UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 36))
        }
    }

    /// The value read as a UUID (``Foundation/UUID/init(apnsText:)-(UnsafeBufferPointer<UInt8>)``),
    /// nil when it is none or absent: an `apns-id` is parsed only when it is asked for.
    var uuid: UUID? {
        isPresent ? withBytes { UUID(apnsText: $0) } : nil
    }

    /// The value as a string (bytes that are not UTF-8 repaired, as a received field's are);
    /// nil when absent.
    var string: String? {
        guard isPresent else { return nil }
        return other?.text ?? withBytes { String(decoding: $0, as: UTF8.self) }
    }

    static func == (lhs: FieldText, rhs: FieldText) -> Bool {
        if lhs.other == nil, rhs.other == nil { return lhs.isPresent == rhs.isPresent && lhs.words == rhs.words }
        return lhs.string == rhs.string
    }
}
