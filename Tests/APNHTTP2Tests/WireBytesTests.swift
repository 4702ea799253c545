import APNHTTP2
import APNTestSupport
import Testing

/// The bytes a session puts on the wire, pinned literally.
@Suite struct WireBytesTests {
    /// The preface, then SETTINGS: ENABLE_PUSH 0, MAX_CONCURRENT_STREAMS 100,
    /// INITIAL_WINDOW_SIZE 65,535, MAX_HEADER_LIST_SIZE 16,384, NO_RFC7540_PRIORITIES 1;
    /// then a WINDOW_UPDATE taking the connection window from 65,535 to 1 MiB.
    @Test func aClientStartsWithThePrefaceThenSettingsThenAWindowUpdate() throws {
        let client = try HTTP2Session(role: .client)
        var output: [UInt8] = []
        while client.appendOutput(to: &output) > 0 {}
        #expect(Array(output.prefix(24)) == clientPreface)
        #expect(Array(output.prefix(24)) == hex("505249202a20485454502f322e300d0a0d0a534d0d0a0d0a"))
        #expect(Array(output.dropFirst(24)) == hex("""
            00001e 04 00 00000000
            0002 00000000
            0003 00000064
            0004 0000ffff
            0006 00004000
            0009 00000001
            000004 08 00 00000000 000f0001
            """))
    }

    @Test func aServerStartsWithSettingsThenAWindowUpdate() throws {
        var configuration = HTTP2Session.Configuration()
        configuration.maxConcurrentStreams = 1000
        let server = try HTTP2Session(role: .server, configuration: configuration)
        var output: [UInt8] = []
        while server.appendOutput(to: &output) > 0 {}
        #expect(output == hex("""
            000018 04 00 00000000
            0003 000003e8
            0004 0000ffff
            0006 00004000
            0009 00000001
            000004 08 00 00000000 000f0001
            """))
    }

    /// A server's bytes written by hand: an empty SETTINGS, a `:status 100` block (the name
    /// from HPACK's static table, index 8), then `:status 200` (static entry 8) ending the
    /// stream. The client drops the informational block and reports the final response.
    @Test func anInformationalResponseIsDropped() throws {
        let client = try HTTP2Session(role: .client)
        let streamID = try client.submitRequest(headers: apnsHeaders(token: token(1)), body: [])
        var output: [UInt8] = []
        while client.appendOutput(to: &output) > 0 {}
        try client.receive(hex("""
            000000 04 00 00000000
            000005 01 04 00000001 08 03 313030
            000001 01 05 00000001 88
            """))
        #expect(client.takeEvents() == [
            .remoteSettingsChanged(maxConcurrentStreams: UInt32.max),
            .response(streamID: streamID, headers: [HTTP2Header(":status", "200")], body: []),
            .streamClosed(streamID: streamID, errorCode: .noError),
        ])
    }

    /// A field sent with `isIndexable: false` goes out as HPACK's "literal never indexed"
    /// (first octet `0001xxxx`; name not in the static table: `0x10`), response after
    /// response, since it never enters the table; an indexable one as "literal with
    /// incremental indexing" (`0x40`), then by its table index. The peer reads both.
    @Test func aFieldNotIndexableIsSentAsANeverIndexedLiteral() throws {
        let pair = try SessionPair()
        let streams = try (1...2).map { n in try pair.client.submitRequest(headers: apnsHeaders(token: token(n)), body: []) }
        try pair.exchange()
        var output: [UInt8] = []
        while pair.server.appendOutput(to: &output) > 0 {}  // nothing pending after the exchange
        for (n, streamID) in streams.enumerated() {
            try pair.server.submitResponse(streamID: streamID, headers: [
                HTTP2Header(":status", "200"), HTTP2Header("apns-id", "id-\(n)", isIndexable: false),
                HTTP2Header("x-kept", "same"),
            ], body: [])
        }
        while pair.server.appendOutput(to: &output) > 0 {}
        let blocks = Frame.parse(output).filter { $0.type == 1 }.map(\.payload)
        try #require(blocks.count == 2)
        // :status 200 is static entry 8 (0x88); then apns-id never indexed, a literal name.
        #expect(blocks.allSatisfy { Array($0.prefix(2)) == [0x88, 0x10] }, "\(blocks)")
        #expect(blocks[0].contains(0x40), "x-kept enters the table the first time")
        #expect(blocks[1].last == 0xbe, "and is sent by its index (62) the second time: \(blocks[1])")
        try pair.feed(output, to: pair.client)
        let responses = pair.client.takeEvents().compactMap { event -> [HTTP2Header]? in
            if case .response(_, let headers, _) = event { Array(headers) } else { nil }
        }
        #expect(responses == (0..<2).map { n in
            [HTTP2Header(":status", "200"), HTTP2Header("apns-id", "id-\(n)"), HTTP2Header("x-kept", "same")]
        })
    }
}
