/// Where one connection's byte stream stands: what the socket took, what the peer
/// acknowledged and when, and which identifiers were written on it.
struct StreamPosition: ~Copyable {
    /// Bytes the socket took on this connection.
    var takenBytes: Int64 = 0
    /// Of those, the bytes the peer's TCP acknowledged (as the driver last reported).
    var acknowledgedBytes: Int64 = 0
    /// Where the frame of the oldest unsettled written entry (`sent[0]`) starts.
    var frontOffset: Int64 = 0
    /// Entries the socket took on this connection, settled ones included: identifiers
    /// `firstIdentifier …` up to this many were written here.
    var identifiersTaken: UInt64 = 0
    /// Notifications encoded since the last marker (or since connecting): what a marker
    /// written now would confirm.
    var encodedSinceMarker = 0
    /// The identifier of the last frame the socket took.
    var lastTakenIdentifier: UInt32 = 0
    /// `sent[0..<answeredPrefix]` were taken at least one answer span ago (see
    /// ``AnswerPacing``): what remains counts against the paced window.
    var answeredPrefix = 0
    /// When a report first found bytes unacknowledged with no progress since the one before.
    var unacknowledgedSince: Timestamp?
    /// The peer acknowledged nothing for ``GatewaySession/stallDetectionNanos`` while bytes
    /// waited: it stopped reading at some point, so what its TCP acknowledged may sit
    /// unread in its kernel's buffer, lost if it closes. For the rest of the connection the
    /// grace window accepts nothing; only the answer to a confirmation marker does.
    var stalled = false
    /// When each reported acknowledgement came, oldest first; those that only cover
    /// settled entries are dropped.
    var acknowledgementTimes = RingBuffer<AcknowledgementTime>(minimumCapacity: 16)

    /// When the peer was first reported to have acknowledged the first `offset` bytes (nil
    /// if it has not).
    func acknowledgedAt(_ offset: Int64) -> Timestamp? {
        for index in 0..<acknowledgementTimes.count where acknowledgementTimes[index].offset >= offset {
            return acknowledgementTimes[index].at
        }
        return nil
    }

    /// Forgets the acknowledgements that cover nothing past `offset`.
    mutating func forgetAcknowledgements(through offset: Int64) {
        while let first = acknowledgementTimes.first, first.offset <= offset { acknowledgementTimes.removeFirst() }
    }
}

/// The peer had acknowledged `offset` bytes of the connection's stream when reported `at`.
struct AcknowledgementTime {
    var offset: Int64
    var at: Timestamp
}
