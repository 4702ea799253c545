import APNWire
import Foundation

extension UUID {
    /// The UUID an `apns-id` (or any canonical UUID text, either case) spells, or nil:
    /// parsed by hand (``UUIDText``), not by `UUID(uuidString:)`'s `sscanf`, for a response
    /// carries one every time.
    package init?(apnsText text: String) {
        guard let (high, low) = UUIDText.value(of: text) else { return nil }
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
