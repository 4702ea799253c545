import APNWire
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// The gateway judges all the notifications one read brings under one lock; these pin that
/// each is still judged on its own, at its exact place, when many arrive in one TLS record.
@Suite(.threadPerTest) struct FaultsWithinOneReadTests {
    @Test func stallsThenShutsDownAtTheExactNotificationsOfOneWrite() throws {
        var faults = MockGateway.Faults()
        faults.stallReads(afterAccepting: 3, for: .milliseconds(200))
        faults.shutdownAfter = 7
        faults.rejectIdentifier(9)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...12))  // one write: one TLS record, one read

        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 0a 00000007"))
        #expect(harness.gateway.records == (1...7).map { enhancedRecord($0, connection: 1, sequence: Int($0)) })
        #expect(harness.gateway.rejections == [.init(status: .shutdown, identifier: 7, connection: 1)])
        #expect(harness.gateway.faults.stallReadsAfter == nil)
        #expect(harness.gateway.faults.rejectedIdentifiers == [9: .invalidToken])
    }

    @Test func closesAfterNBeforeALaterRejectionInTheSameRead() throws {
        var faults = MockGateway.Faults()
        faults.closeAfter = 3
        faults.rejectNotification(number: 5)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...8))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes.isEmpty)
        #expect(harness.gateway.records == (1...3).map { enhancedRecord($0, connection: 1, sequence: Int($0)) })
        #expect(harness.gateway.rejections.isEmpty)
    }

    @Test func rejectsTheNthOfOneReadAndRecordsNothingAfterIt() throws {
        var faults = MockGateway.Faults()
        faults.rejectNotificationOnEachConnection(number: 4, status: .missingTopic)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        // A decoder rejection (token length 0) after the fault must not be reached either.
        try client.send(enhancedFrames(1...6) + hex("01 00000063 00000000 0000"))

        #expect(try client.readToEnd().bytes == hex("08 03 00000004"))
        #expect(harness.gateway.records == (1...3).map { enhancedRecord($0, connection: 1, sequence: Int($0)) })
        #expect(harness.gateway.rejections == [.init(status: .missingTopic, identifier: 4, connection: 1)])
    }
}
