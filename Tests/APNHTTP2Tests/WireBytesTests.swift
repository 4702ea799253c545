import APNHTTP2
import TestSupport
import Testing

/// The bytes a session puts on the wire, pinned literally.
@Suite struct WireBytesTests {
    @Test func aClientStartsWithThePrefaceThenSettingsThenAWindowUpdate() throws {
        let client = try HTTP2Session(role: .client)
        var output: [UInt8] = []
        while client.appendOutput(to: &output) > 0 {}
        #expect(Array(output.prefix(24)) == clientPreface)
        #expect(Array(output.prefix(24)) == hex("505249202a20485454502f322e300d0a0d0a534d0d0a0d0a"))
        #expect(Array(output.dropFirst(24)) == hex("""
            000018 04 00 00000000
            0002 00000000
            0003 00000064
            0004 0000ffff
            0006 00004000
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
            000012 04 00 00000000
            0003 000003e8
            0004 0000ffff
            0006 00004000
            000004 08 00 00000000 000f0001
            """))
    }
}
