import APNWire

/// The `apns-id` (or `apns-unique-id`) an answer carries: the request's own, as sent, or a
/// UUID the gateway made, kept as its 128 bits. A made one is written straight into the
/// response's field and the record's bytes (``withUTF8(_:)``) and becomes a string only
/// when one is asked for (``text``): two strings an answer cost the gateway about 1,500
/// instructions, most of them the strings' UTF-8 checks and allocations.
struct AnswerID: Equatable {
    private enum Value: Equatable {
        case sent(String)
        case made(high: UInt64, low: UInt64)
    }

    private let value: Value

    /// An id as the request sent it.
    init(sent: String) {
        value = .sent(sent)
    }

    /// A UUID's 128 bits, most significant half first.
    init(high: UInt64, low: UInt64) {
        value = .made(high: high, low: low)
    }

    /// No id (a broadcast's answer, which carries its own fields).
    static let none = AnswerID(sent: "")

    /// The id's text: as sent, or the made UUID in lowercase.
    var text: String {
        switch value {
        case .sent(let text): text
        case .made(let high, let low): UUIDText.text(high: high, low: low)
        }
    }

    /// Calls `body` with the text's UTF-8 bytes, valid during the call.
    func withUTF8<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch value {
        case .sent(var text):
            return try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        case .made(let high, let low):
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: UUIDText.length) { buffer in
                UUIDText.write(high: high, low: low, to: buffer.baseAddress!)
                return try body(UnsafeRawBufferPointer(buffer))
            }
        }
    }
}
