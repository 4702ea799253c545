import APNTLS
import APNWire
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// Commands 0, 1 and 2 as conforming clients send them, and Apple's validation.
@Suite(.threadPerTest) struct CommandTests {
    @Test func recordsEachCommandExactly() throws {
        let harness = try Harness()
        let client = try harness.connect()
        var buffer = WireBuffer()
        buffer.writeSimpleNotification(token: token(1), payload: payload(1))
        buffer.writeEnhancedNotification(identifier: 7, expiry: 1_000, token: token(2), payload: payload(2))
        buffer.writeFrameNotification(identifier: 8, expiry: 2_000, priority: 5, token: token(3), payload: payload(3))
        // A frame with items 1 and 2 only: 02 | length 60 | 01 0020 token | 02 0016 payload (22 bytes).
        #expect(payload(4).count == 22)
        let bare = hex("02 0000003c 01 0020") + token(4) + hex("02 0016") + payload(4)
        try client.send(buffer.readableBytesArray + bare)

        let records = harness.records(waitingFor: 4)
        #expect(records == [
            MockGateway.Record(connection: 1, sequence: 1, command: .simple, identifier: nil,
                               token: token(1), payload: payload(1), expiry: nil, priority: nil),
            MockGateway.Record(connection: 1, sequence: 2, command: .enhanced, identifier: 7,
                               token: token(2), payload: payload(2), expiry: 1_000, priority: nil),
            MockGateway.Record(connection: 1, sequence: 3, command: .frame, identifier: 8,
                               token: token(3), payload: payload(3), expiry: 2_000, priority: 5),
            MockGateway.Record(connection: 1, sequence: 4, command: .frame, identifier: nil,
                               token: token(4), payload: payload(4), expiry: nil, priority: nil),
        ])
        #expect(harness.gateway.rejections.isEmpty)
        #expect(harness.gateway.connectionCount == 1)
    }

    @Test func recordsManyFramesFromOneWriteInOrder() throws {
        let harness = try Harness()
        let client = try harness.connect()
        var buffer = WireBuffer()
        for id in UInt32(1)...300 {
            buffer.writeFrameNotification(
                identifier: id, expiry: id, priority: 10, token: token(UInt8(id % 256)), payload: payload(Int(id)))
        }
        try client.send(buffer.readableBytesArray)  // about 17 KB: one write, two TLS records

        let records = harness.records(waitingFor: 300)
        #expect(records.count == 300)
        #expect(records.map(\.identifier) == (UInt32(1)...300).map { $0 })
        #expect(records.map(\.sequence) == Array(1...300))
        #expect(records.allSatisfy { $0.connection == 1 && $0.command == .frame && $0.priority == 10 })
    }

    @Test(arguments: [Chunking.byteByByte, .random(seed: 11), .random(seed: 12)])
    func reassemblesAFrameSplitAcrossWrites(chunking: Chunking) throws {
        let harness = try Harness()
        let client = try harness.connect()
        var buffer = WireBuffer()
        buffer.writeFrameNotification(identifier: 42, expiry: 99, priority: 10, token: token(9), payload: payload(9))
        try client.send(chunks: chunking.split(buffer.readableBytesArray))

        #expect(harness.records(waitingFor: 1) == [
            MockGateway.Record(connection: 1, sequence: 1, command: .frame, identifier: 42,
                               token: token(9), payload: payload(9), expiry: 99, priority: 10)
        ])
    }

    @Test func acceptsIdentifiersRepeatingAcrossConnections() throws {
        let harness = try Harness()
        let first = try harness.connect()
        try first.send(enhancedFrames(1...3))
        #expect(harness.gateway.waitForRecords(count: 3, timeout: .seconds(10)))
        let second = try harness.connect()
        try second.send(enhancedFrames(1...3))

        let records = harness.records(waitingFor: 6)
        #expect(records == (1...3).map { enhancedRecord($0, connection: 1, sequence: Int($0)) }
            + (1...3).map { enhancedRecord($0, connection: 2, sequence: Int($0) + 3) })
        #expect(harness.gateway.connectionCount == 2)
    }

    @Test func answersAnInvalidTokenSizeWithStatus5AndRecordsNothingAfter() throws {
        let harness = try Harness()
        let client = try harness.connect()
        var buffer = WireBuffer()
        buffer.writeEnhancedNotification(identifier: 6, expiry: 0, token: token(6), payload: payload(6))
        buffer.writeEnhancedNotification(identifier: 7, expiry: 0, token: [UInt8](repeating: 7, count: 31), payload: payload(7))
        buffer.writeEnhancedNotification(identifier: 8, expiry: 0, token: token(8), payload: payload(8))
        try client.send(buffer.readableBytesArray)

        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 05 00000007"))
        #expect(transcript.end == .closed(clean: true))
        #expect(harness.gateway.records == [enhancedRecord(6, connection: 1, sequence: 1)])
        #expect(harness.gateway.rejections == [.init(status: .invalidTokenSize, identifier: 7, connection: 1)])
    }

    @Test func closesWithoutAResponseForAnInvalidCommand0() throws {
        let harness = try Harness()
        let client = try harness.connect()
        var buffer = WireBuffer()
        buffer.writeSimpleNotification(token: token(1), payload: payload(1))
        buffer.writeSimpleNotification(token: token(2), payload: [])
        buffer.writeSimpleNotification(token: token(3), payload: payload(3))
        try client.send(buffer.readableBytesArray)

        let transcript = try client.readToEnd()
        #expect(transcript.bytes.isEmpty)
        #expect(transcript.end == .closed(clean: false))
        #expect(harness.gateway.records.map(\.token) == [token(1)])
        #expect(harness.gateway.rejections == [.init(status: .missingPayload, identifier: nil, connection: 1)])
    }

    @Test func closesWithoutAResponseForAnUnknownCommand() throws {
        let harness = try Harness()
        let client = try harness.connect()
        try client.send(enhancedFrames(1...1) + hex("09 00000001"))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes.isEmpty)
        #expect(transcript.end == .closed(clean: false))
        #expect(harness.gateway.records == [enhancedRecord(1, connection: 1, sequence: 1)])
        #expect(harness.gateway.rejections.isEmpty)
    }

    @Test(arguments: [TLSVersion.tls1_2, .tls1_3])
    func refusesAClientWithoutACertificate(version: TLSVersion) throws {
        let harness = try Harness()
        let anonymous = try TLSClientContext(
            trustedCertificates: [harness.gateway.certificateAuthority.certificate],
            minimumVersion: version, maximumVersion: version)
        do {
            // TLS 1.3 clients finish first and learn of the refusal on their first read.
            let client = try harness.connect(context: anonymous)
            let transcript = try client.readToEnd()
            #expect(transcript.bytes.isEmpty)
            #expect(transcript.end != .timedOut)
            #expect(transcript.end != .closed(clean: true))
        } catch let error as TLSError {
            #expect(error.kind == .handshake)
        }
        #expect(harness.gateway.waitForHandshakeFailures(count: 1, timeout: .seconds(10)))
        #expect(harness.gateway.connectionCount == 0)
        #expect(harness.gateway.records.isEmpty)
    }
}
