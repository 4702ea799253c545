import APNWire
import Foundation

extension UUID {
    /// The UUID an `apns-id` (or any canonical UUID text, either case) spells, or nil:
    /// parsed by hand (``UUIDText``), not by `UUID(uuidString:)`'s `sscanf`, for a response
    /// carries one every time.
    package init?(apnsText text: String) {
        guard let (high, low) = UUIDText.value(of: text) else { return nil }
        self.init(high: high, low: low)
    }

    /// ``init(apnsText:)`` of UTF-8 bytes (a response field's value as received).
    package init?(apnsText bytes: UnsafeBufferPointer<UInt8>) {
        guard let (high, low) = UUIDText.value(of: bytes) else { return nil }
        self.init(high: high, low: low)
    }

    private init(high: UInt64, low: UInt64) {
        var bytes = (high.bigEndian, low.bigEndian)
        self.init(uuid: withUnsafeBytes(of: &bytes) { $0.loadUnaligned(as: uuid_t.self) })
    }

    /// The canonical text, lowercase, as APNs writes an `apns-id`.
    package var apnsText: String {
        var bytes = uuid
        let (high, low) = withUnsafeBytes(of: &bytes) {
            (UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        return UUIDText.text(high: high, low: low)
    }
}
