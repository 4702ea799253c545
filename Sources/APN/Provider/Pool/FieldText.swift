import Foundation

/// A response field's value as received, made a string only when one is asked for: 36
/// bytes — a UUID's text, which Apple's `apns-unique-id` is — are kept inline, any other
/// length as a string. Apple answers every request in the development environment with an
/// `apns-unique-id`, and a string made of each cost an allocation, a UTF-8 check and a
/// release (about 500 instructions an answer) that a bridge forwarding thousands a second
/// never reads. An `apns-id` is kept so too, and read as a UUID only when asked for.
struct FieldText: Sendable, Equatable {
    private enum Storage: Sendable {
        /// The 36 bytes, in order, in four words and a half.
        case inline(UInt64, UInt64, UInt64, UInt64, UInt32)
        case string(String)
    }

    private let storage: Storage

    /// The value `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 36, let base = bytes.baseAddress else {
            storage = .string(String(decoding: bytes, as: UTF8.self))
            return
        }
        let raw = UnsafeRawPointer(base)
        storage = .inline(
            raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self),
            raw.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
    }

    /// The value `text`.
    init(_ text: String) {
        storage = .string(text)
    }

    /// A UUID's text as Apple writes it (lowercase, hyphenated, 36 bytes: kept inline): an
    /// `apns-id` given as a UUID.
    init(uuid: UUID) {
        var text = uuid.apnsText
        self = text.withUTF8 { FieldText($0) }
    }

    /// The value read as a UUID (``Foundation/UUID/init(apnsText:)-(UnsafeBufferPointer<UInt8>)``),
    /// nil when it is none: an `apns-id` is parsed only when it is asked for.
    var uuid: UUID? {
        switch storage {
        case .string(let text):
            return UUID(apnsText: text)
        case .inline(let a, let b, let c, let d, let e):
            var words = (a, b, c, d, e)
            return withUnsafeBytes(of: &words) { UUID(apnsText: UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 36)) }
        }
    }

    /// The value as a string (bytes that are not UTF-8 repaired, as a received field's are).
    var string: String {
        switch storage {
        case .string(let text):
            return text
        case .inline(let a, let b, let c, let d, let e):
            var words = (a, b, c, d, e)
            return withUnsafeBytes(of: &words) { String(decoding: $0.prefix(36), as: UTF8.self) }
        }
    }

    static func == (lhs: FieldText, rhs: FieldText) -> Bool {
        if case .inline(let a, let b, let c, let d, let e) = lhs.storage,
            case .inline(let f, let g, let h, let i, let j) = rhs.storage
        {
            return (a, b, c, d, e) == (f, g, h, i, j)
        }
        return lhs.string == rhs.string
    }
}
