/// The record file's lines, built from the store's own entries instead of public
/// ``HTTP2MockGateway/Record`` values and `String`s: their building cost the record thread
/// 14–19 µs a request (issue #26).
extension HTTP2RecordStore {
    /// Records copied out of the store under the gateway's lock, to be formatted after it is
    /// released: the connections record on meanwhile.
    struct Copy {
        /// The position (0-based) of the first.
        var start = 0
        var entries: [Entry] = []
        /// Each entry's bytes (token, `apns-id`, collapse id, payload), back to back in the
        /// entries' order (the entries' `bytes` pointers are not to be used).
        var bytes: [UInt8] = []
        /// The interned topics and authentications the entries name (shared, not copied:
        /// they only ever grow).
        var topics: [String] = []
        var authentications: [HTTP2MockGateway.Authentication] = []
    }

    /// Copies the records at `range` into `copy`, replacing what it held.
    /// - Precondition: `range` lies within `firstKept..<count`.
    func copy(_ range: Range<Int>, into copy: inout Copy) {
        precondition(range.lowerBound >= blocks.firstKept && range.upperBound <= count, "records \(range) of \(blocks.firstKept)..<\(count)")
        copy.start = range.lowerBound
        copy.topics = topics.values
        copy.authentications = authentications.values
        blocks.copy(range, entries: &copy.entries, bytes: &copy.bytes) { ($0.bytes, $0.byteCount) }
    }
}

extension HTTP2RecordStore.Copy: RecordFileLines {
    /// Appends one line per record, as `apn mock-gateway --record` writes them:
    /// `{"protocol":"http2","connection":…,"seq":…,"token":"hex","topic":…,"push_type":…,
    /// "priority":…,"expiration":…,"collapse_id":…,"apns_id":…,"auth":"certificate"` (or
    /// `"token","key_id":…,"team_id":…`)`,"payload":…}`, absent fields `null`.
    func appendLines(to lines: inout RecordLineBuffer) {
        bytes.withUnsafeBytes { bytes in
            var offset = 0
            for (index, entry) in entries.enumerated() {
                let parts = HTTP2RecordStore.Parts(entry, bytes: bytes.baseAddress! + offset)
                offset += entry.byteCount
                let topic = topics[Int(entry.topic)]
                let authentication = authentications[Int(entry.authentication)]
                let strings: Int
                switch authentication {
                case .certificate: strings = topic.utf8.count
                case .token(let keyID, let teamID): strings = topic.utf8.count + keyID.utf8.count + teamID.utf8.count
                }
                let maximumLength = 300 + 2 * parts.token.count
                    + RecordLineCursor.maximumQuotedLength(strings + parts.apnsID.count + parts.collapseID.count)
                    + RecordLineCursor.maximumPayloadLength(parts.payload.count)
                lines.appendLine(maximumLength: maximumLength) { line in
                    line.raw(#"{"protocol":"http2","connection":"#)
                    line.integer(Int(entry.connection))
                    line.raw(#","seq":"#)
                    line.integer(start + index + 1)
                    line.raw(#","token":""#)
                    line.hex(parts.token)
                    line.raw(#"","topic":"#)
                    line.quoted(topic)
                    line.raw(#","push_type":"#)
                    if let pushType = parts.pushType { line.quoted(pushType) } else { line.raw("null") }
                    line.raw(#","priority":"#)
                    line.integer(parts.priority)
                    line.raw(#","expiration":"#)
                    line.integer(parts.expiration)
                    line.raw(#","collapse_id":"#)
                    if entry.collapseIDLength == 0 { line.raw("null") } else { line.quoted(parts.collapseID) }
                    line.raw(#","apns_id":"#)
                    line.quoted(parts.apnsID)
                    line.authentication(authentication)
                    line.payload(parts.payload)
                    line.raw("}\n")
                }
            }
        }
    }
}

extension RecordLineCursor {
    /// Appends `,"auth":"certificate"`, or `,"auth":"token","key_id":…,"team_id":…`.
    mutating func authentication(_ authentication: HTTP2MockGateway.Authentication) {
        switch authentication {
        case .certificate:
            raw(#","auth":"certificate""#)
        case .token(let keyID, let teamID):
            raw(#","auth":"token","key_id":"#)
            quoted(keyID)
            raw(#","team_id":"#)
            quoted(teamID)
        }
    }
}
