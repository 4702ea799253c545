import APN
import APNWire
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Gateway session: connecting and writing", .threadPerTest)
struct SessionSendingTests {
    @Test func nothingHappensUntilTheFirstPushThenItConnectsOnce() {
        var h = SessionHarness()
        h.drain()
        #expect(h.connectRequests == 0)
        h.push(1...3)
        #expect(h.connectRequests == 1)
        #expect(h.session.outboundBytes.isEmpty, "nothing is encoded before the connection is up")
        h.connected()
        #expect(h.milestones == ["connected"])
        let frames = h.write()
        #expect(frames.map(\.tag) == [1, 2, 3])
        #expect(frames.map(\.identifier) == [1, 2, 3], "identifiers start at 1 on each connection")
    }

    @Test func writtenFramesAreTransmittedThenCompletedOnce() {
        var h = SessionHarness { $0.emitsTransmitted = true }
        h.push(1...3)
        h.connected()
        h.write()
        #expect(h.transmitted == [1, 2, 3])
        #expect(h.milestones == ["connected", "completed"])
        h.push(4...4)
        h.write()
        #expect(h.milestones == ["connected", "completed", "completed"])
    }

    @Test func transmittedEventsAreOffUnlessAsked() {
        var h = SessionHarness()
        h.push(1...3)
        h.connected()
        h.write()
        #expect(h.transmitted.isEmpty)
        #expect(h.milestones == ["connected", "completed"])
    }

    @Test func aFrameCountsAsWrittenOnlyWhenTheSocketTookAllOfIt() {
        var h = SessionHarness { $0.emitsTransmitted = true }
        h.push(1...2)
        h.connected()
        let frameLength = 13 + 32 + SessionHarness.payload(1).count
        h.write(frameLength - 1)
        #expect(h.transmitted.isEmpty)
        h.write(2)
        #expect(h.transmitted == [1], "2 is not whole yet")
    }

    @Test func writtenNotificationsAreAcceptedWhenTheGraceWindowPasses() {
        var h = SessionHarness()
        h.push(1...2)
        h.connected()
        h.write()
        #expect(h.timer == .seconds(2.5))
        h.advance(2.4)
        #expect(h.outcomes.isEmpty)
        h.advance(0.1)
        #expect(h.outcome(1) == accepted(.graceWindow))
        #expect(h.outcome(2) == accepted(.graceWindow))
    }

    @Test(arguments: [Command.simple, .enhanced, .frame])
    func eachFormatIsWrittenAsItsCommand(command: Command) {
        var h = SessionHarness { $0.command = command }
        h.push(7...7)
        h.connected()
        let bytes = h.session.outboundBytes.readableBytesArray
        #expect(bytes.first == command.rawValue)
        var decoder = GatewayDecoder()
        decoder.feed(bytes)
        guard case .notification(let note)? = decoder.next() else {
            Issue.record("not decodable")
            return
        }
        #expect(note.token == SessionHarness.token(7))
        #expect(note.payload == SessionHarness.payload(7))
        #expect(note.identifier == (command == .simple ? nil : 1))
    }

    @Test func encodingStopsAtTheBatchSizeAndResumesAsTheSocketTakesBytes() {
        var h = SessionHarness { $0.writeBatchBytes = 200 }
        h.push(1...10)
        h.connected()
        let first = h.session.outboundBytes.readableBytes
        #expect(first >= 200 && first < 300, "about one batch encoded ahead")
        var tags: [Int] = []
        while !h.session.outboundBytes.isEmpty { tags += h.write().map(\.tag) }
        #expect(tags == Array(1...10))
    }

    @Test func identifiersWrapFromMaxToOneSkippingZero() {
        var h = SessionHarness { $0.firstIdentifier = 0xFFFF_FFFE }
        h.push(1...4)
        h.connected()
        #expect(h.write().map(\.identifier) == [0xFFFF_FFFE, 0xFFFF_FFFF, 1, 2])
        // An error naming identifier 1 finds it across the wrap.
        h.respond(.invalidToken, 1)
        #expect(h.outcome(1) == accepted(.laterIdentifier))
        #expect(h.outcome(2) == accepted(.laterIdentifier))
        #expect(h.outcome(3) == .rejected(.invalidToken))
        #expect(h.outcome(4) == nil, "resent, not settled")
    }
}
