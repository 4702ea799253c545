import APNWire
import APNGatewayServer

extension Ledger {
    /// Judges, in order, the messages `decoder` can decode now — at most `limit`
    /// notifications — until one ends the connection or asks for a read stall. Called once
    /// per socket read, inside one lock acquisition, so the gateway takes the lock once per
    /// read rather than once per notification (issue #5: millions a second on one
    /// connection).
    ///
    /// Each notification is still judged on its own, against the faults as the previous
    /// one left them, exactly as if the lock were taken for it alone: the "after N" faults
    /// fire at the N-th accepted notification, and nothing after a notification that ends
    /// the connection is decoded, let alone recorded. Only another thread's
    /// ``MockGateway/setFaults(_:)`` waits for the batch to finish: it applies from the
    /// next read, which is within what "the faults current when it is decoded" promises.
    ///
    /// - Returns: ``Verdict/goOn`` when everything decodable was judged: read more;
    ///   ``Verdict/limitReached`` when `limit` notifications were judged, or as many as
    ///   the records had room for (the rest of the read stays in the decoder, judged
    ///   later); ``Verdict/recordsFull`` when the records have no room at all
    ///   (``RecordRetention/Overflow/pauseConnections``).
    /// - Parameters:
    ///   - ordinal: the number of the last notification decoded on this connection;
    ///     advanced for each one decoded here.
    ///   - limit: how many notifications to judge at most (``MockGateway/Faults/readRate``'s
    ///     budget); above 0.
    mutating func judgeDecoded(
        from decoder: inout GatewayDecoder, connection: Int, ordinal: inout Int, limit: Int = .max
    ) -> Verdict {
        // Each notification judged is recorded at most once: judging no more than there is
        // room for keeps the retention's limit exact.
        let room = records.blocks.room
        guard room > 0 else { return .recordsFull }
        let limit = min(limit, room)
        // The ordinal at which to stop: one comparison a notification rather than a
        // second counter, and never reached when unlimited.
        let (sum, overflow) = ordinal.addingReportingOverflow(limit)
        let last = overflow ? Int.max : sum
        while true {
            var verdict = Verdict.goOn
            let event = decoder.next { notification in
                ordinal += 1
                verdict = judge(notification, connection: connection, ordinal: ordinal)
            }
            switch event {
            case nil:
                return .goOn
            case .notification:
                // After a stall, the rest of this read stays in the decoder, judged later.
                guard case .goOn = verdict else { return verdict }
                if ordinal == last { return .limitReached }
            case .rejected(let rejection):
                return .end(refuse(rejection, connection: connection))
            case .unknownCommand:
                return .end(.close)
            }
        }
    }
}
