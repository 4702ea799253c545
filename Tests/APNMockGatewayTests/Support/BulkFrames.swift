import APNWire
import APNMockGateway

/// The token for `bulkFrames` identifier `id`: its 4 bytes, then 28 of `0xA5`.
func bulkToken(_ id: UInt32) -> [UInt8] {
    withUnsafeBytes(of: id.bigEndian) { Array($0) } + [UInt8](repeating: 0xA5, count: 28)
}

/// A 200-byte payload naming `id`, so frames are 245 bytes and a batch of 4096 about 1 MB.
func bulkPayload(_ id: UInt32) -> [UInt8] {
    let text = #"{"aps":{"alert":"n\#(id)"},"pad":""#
    return Array((text + String(repeating: "x", count: 200 - text.utf8.count - 2) + #""}"#).utf8)
}

/// Command 1 frames for the identifiers (any number of them, unlike `enhancedFrames`), expiry 0.
func bulkFrames(_ identifiers: Range<UInt32>) -> [UInt8] {
    var buffer = WireBuffer(capacity: identifiers.count * 245)
    for id in identifiers {
        buffer.writeEnhancedNotification(identifier: id, expiry: 0, token: bulkToken(id), payload: bulkPayload(id))
    }
    return buffer.readableBytesArray
}

/// The record the gateway keeps for `bulkFrames` identifier `id`.
func bulkRecord(_ id: UInt32, sequence: Int, connection: Int = 1) -> MockGateway.Record {
    MockGateway.Record(
        connection: connection, sequence: sequence, command: .enhanced, identifier: id,
        token: bulkToken(id), payload: bulkPayload(id), expiry: 0, priority: nil)
}
