import APNAdmin
import APNTestSupport
import Testing

/// #42: the admin listener's request parser, fed whole, byte by byte and in random chunks,
/// and the exposition format's escaping, against literal vectors.
@Suite struct AdminRequestTests {
    static let vector = Array("GET /metrics?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9100\r\nAccept: */*\r\n\r\n".utf8)

    /// Feeds `bytes` in `chunking`'s chunks; the first result that is not incomplete.
    static func parse(_ bytes: [UInt8], _ chunking: Chunking) -> AdminRequest.Parsed {
        var received: [UInt8] = []
        for chunk in chunking.split(bytes) {
            received += chunk
            let parsed = AdminRequest.parse(received)
            if parsed != .incomplete { return parsed }
        }
        return .incomplete
    }

    @Test("a request, in any chunks", arguments: Chunking.all)
    func request(_ chunking: Chunking) {
        #expect(Self.parse(Self.vector, chunking) == .request(AdminRequest(method: "GET", path: "/metrics")))
        #expect(Self.parse(Array(Self.vector.dropLast()), chunking) == .incomplete, "the blank line not yet whole")
    }

    @Test(
        "what is refused",
        arguments: [
            ("GET /x HTTP/2.0\r\n\r\n", "not HTTP/1.0 or 1.1"),
            ("GET x HTTP/1.1\r\n\r\n", "the request line is not METHOD /PATH HTTP/1.x"),
            ("GET  /x HTTP/1.1\r\n\r\n", "the request line is not METHOD /PATH HTTP/1.x"),
            ("\r\n\r\n", "the request line is not METHOD /PATH HTTP/1.x"),
            ("GET /\u{7}x HTTP/1.1\r\n\r\n", "the request line is not ASCII"),
        ])
    func malformed(_ text: String, _ why: String) {
        #expect(AdminRequest.parse(Array(text.utf8)) == .malformed(why))
    }

    @Test func headersBeyondTheLimitAreTooLarge() {
        let long = Array("GET / HTTP/1.0\r\nX: ".utf8) + [UInt8](repeating: 0x61, count: AdminRequest.sizeLimit)
        #expect(AdminRequest.parse(long) == .tooLarge, "no end in sight")
        #expect(AdminRequest.parse(long + Array("\r\n\r\n".utf8)) == .tooLarge)
        #expect(AdminRequest.parse(Array("GET / HTTP/1.0\r\n\r\n".utf8)) == .request(AdminRequest(method: "GET", path: "/")))
    }

    @Test func theExpositionFormatEscapesAndOrders() {
        var text = PrometheusText()
        text.family(
            "apn_x_total", .counter, help: "Things \\ counted.\nTwice.",
            [([("tenant", "a\"b\\c\nd")], 3), ([("tenant", "e"), ("status", "8")], 1.5)])
        text.single("apn_up", .gauge, help: "Up.", 1)
        #expect(
            text.text == """
                # HELP apn_x_total Things \\\\ counted.\\nTwice.
                # TYPE apn_x_total counter
                apn_x_total{tenant="a\\"b\\\\c\\nd"} 3
                apn_x_total{tenant="e",status="8"} 1.5
                # HELP apn_up Up.
                # TYPE apn_up gauge
                apn_up 1

                """)
    }
}
