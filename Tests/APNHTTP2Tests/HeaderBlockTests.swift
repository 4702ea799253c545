import APNHTTP2
import APNTestSupport
import Testing

/// Header blocks: fields checked and laid out once, a request's `:path` or an answer's ids
/// filled in per message — what the peer receives is exactly the fields with those values.
@Suite struct HeaderBlockTests {
    @Test(arguments: [Chunking.whole, .byteByByte, .random(seed: 7)])
    func requestsFromOneBlockCarryTheirOwnPathAndTheExtraFields(_ chunking: Chunking) throws {
        let pair = try SessionPair(chunking: chunking)
        var template = apnsHeaders(token: "")
        template[2] = HTTP2Header(":path", "", isIndexable: false)
        let block = try HTTP2HeaderBlock(template)
        let authorization = try HTTP2HeaderBlock([HTTP2Header("authorization", "bearer abc.def.ghi")])
        for index in 1...3 {
            var path = Array("/3/device/\(token(index))".utf8)
            _ = try path.withUnsafeBytes { try pair.client.submitRequest(block, path: $0, appending: authorization, body: [UInt8(index)]) }
            path = []
        }
        try pair.exchange()
        let requests = pair.serverEvents.compactMap { event -> ([HTTP2Header], [UInt8])? in
            guard case .request(_, let headers, let body) = event else { return nil }
            return (Array(headers), body)
        }
        #expect(requests.count == 3)
        for (offset, (headers, body)) in requests.enumerated() {
            var expected = apnsHeaders(token: token(offset + 1))
            expected.append(HTTP2Header("authorization", "bearer abc.def.ghi"))
            #expect(headers == expected)
            #expect(body == [UInt8(offset + 1)])
        }
    }

    @Test func aBlockWithoutAPathSendsItsFieldsAsTheyAre() throws {
        let pair = try SessionPair()
        let block = try HTTP2HeaderBlock(apnsHeaders(token: token(9)), varying: [])
        _ = try pair.client.submitRequest(block, body: [])
        try pair.exchange()
        guard case .request(_, let headers, _)? = pair.serverEvents.first(where: { if case .request = $0 { true } else { false } })
        else { Issue.record("no request"); return }
        #expect(headers == apnsHeaders(token: token(9)))
        // A path for a block with no varying field is refused.
        #expect(throws: HTTP2Error.self) {
            try Array("/x".utf8).withUnsafeBytes { _ = try pair.client.submitRequest(block, path: $0, body: []) }
        }
    }

    @Test func badFieldsAreRefusedWhenTheBlockIsMadeAndBadPathsWhenSubmitted() throws {
        for bad in [HTTP2Header("Apns-Topic", "x"), HTTP2Header("apns-topic", "a\r\nb"), HTTP2Header("apns-topic", " x")] {
            let error = #expect(throws: HTTP2Error.self) { try HTTP2HeaderBlock([bad]) }
            #expect(error?.kind == .invalidHeader)
        }
        let pair = try SessionPair()
        let block = try HTTP2HeaderBlock([HTTP2Header(":method", "POST"), HTTP2Header(":path", "")])
        // Past the eight-byte steps and within them: NUL, CR, LF, DEL, a control byte, white space at the ends.
        let badPaths = ["/3/device/abc\0def", "/3/device/0123456789\r\n", "/\u{7F}", "/3/device/\u{01}", " /3", "/3/device/0123 "]
        for path in badPaths {
            let error = #expect(throws: HTTP2Error.self) {
                try Array(path.utf8).withUnsafeBytes { _ = try pair.client.submitRequest(block, path: $0, body: []) }
            }
            #expect(error?.kind == .invalidHeader)
        }
        // HTAB and bytes above 0x7F inside a value are allowed.
        _ = try Array("/3/a\tb/\u{E9}/0123456789abcdef".utf8).withUnsafeBytes { try pair.client.submitRequest(block, path: $0, body: []) }
    }

    @Test(arguments: [Chunking.whole, .byteByByte])
    func answersFromOneBlockCarryTheirOwnIDs(_ chunking: Chunking) throws {
        let pair = try SessionPair(chunking: chunking)
        for index in 1...2 { _ = try pair.client.submitRequest(headers: apnsHeaders(token: token(index)), body: [1]) }
        try pair.exchange()
        let block = try HTTP2HeaderBlock(
            [HTTP2Header(":status", "200"), HTTP2Header("apns-id", "", isIndexable: false), HTTP2Header("apns-unique-id", "")],
            varying: ["apns-id", "apns-unique-id"])
        let streams = pair.serverEvents.compactMap { event -> Int32? in
            if case .request(let streamID, _, _) = event { streamID } else { nil }
        }
        for (offset, streamID) in streams.enumerated() {
            try pair.server.submitResponse(streamID: streamID, block, values: ["id-\(offset)", "unique-\(offset)"], body: [])
        }
        // Wrong counts and bad values are refused.
        #expect(throws: HTTP2Error.self) { try pair.server.submitResponse(streamID: streams[0], block, values: ["one"], body: []) }
        for bad in ["line\r\nbreak", " leading", "nul\u{0}"] {
            let error = #expect(throws: HTTP2Error.self) {
                try pair.server.submitResponse(streamID: streams[0], block, values: ["fine", bad], body: [])
            }
            #expect(error?.kind == .invalidHeader)
        }
        try pair.exchange()
        let answers = pair.clientEvents.compactMap { event -> [HTTP2Header]? in
            if case .response(_, let headers, _) = event { Array(headers) } else { nil }
        }
        #expect(answers == [
            [HTTP2Header(":status", "200"), HTTP2Header("apns-id", "id-0"), HTTP2Header("apns-unique-id", "unique-0")],
            [HTTP2Header(":status", "200"), HTTP2Header("apns-id", "id-1"), HTTP2Header("apns-unique-id", "unique-1")],
        ])
    }
}
