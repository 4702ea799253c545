import APNWire

/// The record file's lines, built from the store's own entries instead of public
/// ``MockGateway/Record`` values (two arrays each) and `String`s: `apn mock-gateway --record`
/// writes a million of them a second (issue #26).
extension RecordStore {
    /// Records copied out of the store under the gateway's lock, to be formatted after it is
    /// released: the connections record on meanwhile.
    struct Copy {
        /// The position (0-based) of the first.
        var start = 0
        var entries: [Entry] = []
        /// Each entry's token then payload, back to back in the entries' order (the entries'
        /// `bytes` pointers are not to be used).
        var bytes: [UInt8] = []
    }

    /// Copies the records at `range` into `copy`, replacing what it held.
    /// - Precondition: `range` lies within `firstKept..<count`.
    func copy(_ range: Range<Int>, into copy: inout Copy) {
        precondition(range.lowerBound >= blocks.firstKept && range.upperBound <= count, "records \(range) of \(blocks.firstKept)..<\(count)")
        copy.start = range.lowerBound
        blocks.copy(range, entries: &copy.entries, bytes: &copy.bytes) { ($0.bytes, Int($0.tokenLength) + Int($0.payloadLength)) }
    }
}

extension RecordStore.Copy: RecordFileLines {
    /// Appends one line per record, as `apn mock-gateway --record` writes them:
    /// `{"connection":…,"seq":…,"command":…,"identifier":…,"token":"hex","payload":"…"`
    /// (or `"payload_base64"` when not UTF-8)`,"expiry":…,"priority":…}`, absent fields `null`.
    func appendLines(to lines: inout RecordLineBuffer) {
        bytes.withUnsafeBytes { bytes in
            var offset = 0
            for (index, entry) in entries.enumerated() {
                let token = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(entry.tokenLength)])
                offset += token.count
                let payload = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(entry.payloadLength)])
                offset += payload.count
                let fields = RecordStore.Fields(entry)
                lines.appendLine(maximumLength: 200 + 2 * token.count + RecordLineCursor.maximumPayloadLength(payload.count)) { line in
                    line.raw(#"{"connection":"#)
                    line.integer(entry.connection)
                    line.raw(#","seq":"#)
                    line.integer(start + index + 1)
                    line.raw(#","command":"#)
                    line.integer(Int(entry.command.rawValue))
                    line.raw(#","identifier":"#)
                    line.integer(fields.identifier.map(Int.init))
                    line.raw(#","token":""#)
                    line.hex(token)
                    line.raw(#"""#)
                    line.payload(payload)
                    line.raw(#","expiry":"#)
                    line.integer(fields.expiry.map(Int.init))
                    line.raw(#","priority":"#)
                    line.integer(fields.priority.map(Int.init))
                    line.raw("}\n")
                }
            }
        }
    }
}
