import APNHTTP2
import TestSupport
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
}
