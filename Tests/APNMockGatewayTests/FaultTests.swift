import APNTLS
import APNWire
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// Each fault, seen from a real TLS client: the bytes it reads back, how the connection
/// ends, and what the gateway recorded (and did not) on that connection.
@Suite(.threadPerTest) struct FaultTests {
    @Test func rejectsATokenGivenInHexWithStatus8() throws {
        var faults = MockGateway.Faults()
        try faults.rejectToken(hex: String(repeating: "AB", count: 32))
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...5, rejectedToken: [UInt8](repeating: 0xAB, count: 32), at: 3))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 08 00000003"))
        #expect(transcript.end == .closed(clean: true))
        #expect(harness.gateway.records == [1, 2].map { enhancedRecord($0, connection: 1, sequence: Int($0)) })
        #expect(harness.gateway.rejections == [.init(status: .invalidToken, identifier: 3, connection: 1)])
    }

    @Test func rejectsAnIdentifier() throws {
        var faults = MockGateway.Faults()
        faults.rejectIdentifier(5)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...8))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 08 00000005"))
        #expect(transcript.end == .closed(clean: true))
        #expect(harness.gateway.records == (1...4).map { enhancedRecord($0, connection: 1, sequence: Int($0)) })
    }

    @Test func rejectsTheNthNotificationOverall() throws {
        var faults = MockGateway.Faults()
        faults.rejectNotification(number: 4, status: .invalidPayloadSize)
        let harness = try Harness(faults: faults)
        let first = try harness.connect()
        try first.send(enhancedFrames(1...3))
        #expect(harness.gateway.waitForRecords(count: 3, timeout: .seconds(10)))

        let second = try harness.connect()
        try second.send(enhancedFrames(11...13))
        let transcript = try second.readToEnd()
        #expect(transcript.bytes == hex("08 07 0000000b"))
        #expect(harness.gateway.records.count == 3)
        #expect(harness.gateway.rejections == [.init(status: .invalidPayloadSize, identifier: 11, connection: 2)])
    }

    @Test func rejectsTheNthNotificationOnEachConnection() throws {
        var faults = MockGateway.Faults()
        faults.rejectNotificationOnEachConnection(number: 2, status: .processingError)
        let harness = try Harness(faults: faults)
        for connection in 1...2 {
            let client = try harness.connect()
            try client.send(enhancedFrames(1...3))
            #expect(try client.readToEnd().bytes == hex("08 01 00000002"))
            #expect(harness.gateway.records.last == enhancedRecord(1, connection: connection, sequence: connection))
        }
        #expect(harness.gateway.records.count == 2)
    }

    @Test func shutsDownAfterNCarryingTheLastGoodIdentifierOnce() throws {
        var faults = MockGateway.Faults()
        faults.shutdownAfter = 3
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...5))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 0a 00000003"))
        #expect(transcript.end == .closed(clean: true))
        #expect(harness.gateway.records == (1...3).map { enhancedRecord($0, connection: 1, sequence: Int($0)) })
        #expect(harness.gateway.rejections == [.init(status: .shutdown, identifier: 3, connection: 1)])
        #expect(harness.gateway.faults.shutdownAfter == nil)

        // The fault fired once: the resent notifications are accepted on a new connection.
        let again = try harness.connect()
        try again.send(enhancedFrames(4...5))
        #expect(harness.records(waitingFor: 5).suffix(2) == [
            enhancedRecord(4, connection: 2, sequence: 4), enhancedRecord(5, connection: 2, sequence: 5),
        ])
    }

    @Test func sendsIdentifierZero() throws {
        var faults = MockGateway.Faults()
        faults.rejectIdentifier(2)
        faults.zeroIdentifierInErrors = true
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...3))

        #expect(try client.readToEnd().bytes == hex("08 08 00000000"))
        #expect(harness.gateway.records == [enhancedRecord(1, connection: 1, sequence: 1)])
        #expect(harness.gateway.rejections == [.init(status: .invalidToken, identifier: 2, connection: 1)])
    }

    @Test func delaysTheErrorResponse() throws {
        var faults = MockGateway.Faults()
        faults.rejectIdentifier(1)
        faults.errorResponseDelay = .milliseconds(300)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        let sent = ContinuousClock.now
        try client.send(enhancedFrames(1...2))

        let transcript = try client.readToEnd()
        #expect(ContinuousClock.now - sent >= .milliseconds(300))
        #expect(transcript.bytes == hex("08 08 00000001"))
        #expect(harness.gateway.records.isEmpty)
        // It kept reading during the delay: the 2nd was decoded and thrown away.
        #expect(harness.gateway.rejections == [.init(status: .invalidToken, identifier: 1, connection: 1, discardedAfter: 1)])
    }

    @Test func splitsTheErrorResponseInTwoRecords() throws {
        var faults = MockGateway.Faults()
        faults.rejectIdentifier(2)
        faults.splitsErrorResponse = true
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...3))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 08 00000002"))
        #expect(transcript.reads == [2, 4])  // SSL_read returns one record at a time
        #expect(transcript.end == .closed(clean: true))
    }

    @Test func closesSilentlyAfterN() throws {
        var faults = MockGateway.Faults()
        faults.closeAfter = 2
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...4))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes.isEmpty)
        #expect(transcript.end == .closed(clean: false))
        #expect(harness.gateway.records == (1...2).map { enhancedRecord($0, connection: 1, sequence: Int($0)) })
        #expect(harness.gateway.rejections.isEmpty)
    }

    @Test func resetsAfterN() throws {
        var faults = MockGateway.Faults()
        faults.resetAfter = 2
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...4))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes.isEmpty)
        #expect(transcript.end == .failed(.connectionReset))
        #expect(harness.gateway.records == (1...2).map { enhancedRecord($0, connection: 1, sequence: Int($0)) })
    }

    @Test func stallsReadingSoTheClientsWritesBlockThenRecordsEverythingInOrder() throws {
        var faults = MockGateway.Faults()
        // Long enough for a loaded machine to fill the socket buffers before it ends (2 s was not).
        faults.stallReads(afterAccepting: 1, for: .seconds(20))
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(bulkFrames(1..<2))
        // The first record is made, and the gateway stops reading right after making it.
        #expect(harness.gateway.waitForRecords(count: 1, timeout: .seconds(10)))

        // Write ~1 MB batches until a write would block; finish that batch blocking.
        var next: UInt32 = 2
        var recordsWhenBlocked: Int?
        while recordsWhenBlocked == nil, next < 400_000 {
            let batch = bulkFrames(next..<next + 4096)
            next += 4096
            let written = try client.writeWithoutBlocking(batch)
            if written < batch.count { recordsWhenBlocked = harness.gateway.records.count }
            try client.send(Array(batch[written...]), timeout: .seconds(30))
        }
        #expect(recordsWhenBlocked == 1)
        #expect(harness.gateway.faults.stallReadsAfter == nil)

        // After the stall every notification is recorded, in order, on the one connection.
        let total = Int(next) - 1
        #expect(harness.gateway.waitForRecords(count: total, timeout: .seconds(30)))
        let records = harness.gateway.records
        #expect(records.count == total)
        #expect(records.map(\.identifier) == (1...UInt32(total)).map { $0 })
        #expect(records.allSatisfy { $0.connection == 1 && $0.sequence == Int($0.identifier ?? 0) })
        #expect(records.last == bulkRecord(UInt32(total), sequence: total))
        #expect(harness.gateway.rejections.isEmpty)
    }

    @Test func appliesFaultsChangedWhileRunning() throws {
        let harness = try Harness()
        let first = try harness.connect()
        try first.send(enhancedFrames(1...2))
        #expect(harness.gateway.waitForRecords(count: 2, timeout: .seconds(10)))

        harness.gateway.updateFaults { $0.rejectIdentifier(2, status: .invalidTokenSize) }
        try first.send(enhancedFrames(1...2))
        #expect(try first.readToEnd().bytes == hex("08 05 00000002"))
        #expect(harness.gateway.records.count == 3)

        harness.gateway.setFaults(MockGateway.Faults())
        let second = try harness.connect()
        try second.send(enhancedFrames(1...2))
        #expect(harness.records(waitingFor: 5).count == 5)
    }

    @Test func refusesTokensThatAreNotHex() {
        var faults = MockGateway.Faults()
        #expect(throws: MockGateway.InvalidHexError(text: "abc")) { try faults.rejectToken(hex: "abc") }
        #expect(throws: MockGateway.InvalidHexError(text: "zz")) { try faults.rejectToken(hex: "zz") }
        #expect(faults.rejectedTokens.isEmpty)
    }
}
