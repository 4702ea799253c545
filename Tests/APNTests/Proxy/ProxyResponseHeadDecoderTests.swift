@testable import APN
import APNTestSupport
import Testing

/// The proxy's answer to `CONNECT`, read from literal bytes fed whole, byte by byte and in
/// random chunks: statuses, fields, bare LFs, the bytes after the head, and what a broken
/// or hostile proxy sends (garbage, a TLS record, a head without end).
@Suite("HTTP proxy: the answer's head")
struct ProxyResponseHeadDecoderTests {
    typealias Head = ProxyResponseHead

    static let complete: [(String, Head, Int)] = [
        ("HTTP/1.1 200 Connection established\r\n\r\n", Head(statusLine: "HTTP/1.1 200 Connection established", status: 200, fields: []), 0),
        (
            "HTTP/1.0 200 Connection established\r\nProxy-agent: tinyproxy/1.11.1\r\n\r\n",
            Head(
                statusLine: "HTTP/1.0 200 Connection established", status: 200,
                fields: [.init(name: "Proxy-agent", value: "tinyproxy/1.11.1")]), 0
        ),
        (
            "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"corp\"\r\nContent-Length: 0\r\n\r\n",
            Head(
                statusLine: "HTTP/1.1 407 Proxy Authentication Required", status: 407,
                fields: [.init(name: "Proxy-Authenticate", value: "Basic realm=\"corp\""), .init(name: "Content-Length", value: "0")]),
            0
        ),
        ("HTTP/1.1 403\r\n\r\n", Head(statusLine: "HTTP/1.1 403", status: 403, fields: []), 0),
        ("HTTP/1.1 502 Bad Gateway\nX:   y  \n\n", Head(statusLine: "HTTP/1.1 502 Bad Gateway", status: 502, fields: [.init(name: "X", value: "y")]), 0),
        ("HTTP/1.1 200 OK\r\n\r\n\u{16}\u{3}\u{1}", Head(statusLine: "HTTP/1.1 200 OK", status: 200, fields: []), 3),
    ]

    @Test("complete heads", arguments: Chunking.all)
    func completeHeads(chunking: Chunking) {
        for (text, head, trailing) in Self.complete {
            let bytes = Array(text.utf8)
            var decoder = ProxyResponseHeadDecoder()
            var result: ProxyResponseHeadDecoder.Step = .needMore
            var fedAfter = 0
            for chunk in chunking.split(bytes) {
                if case .complete = result { fedAfter += chunk.count; continue }
                result = decoder.feed(chunk)
            }
            guard case .complete(let decoded, let left) = result else {
                Issue.record("\(text.debugDescription): \(result)")
                continue
            }
            #expect(decoded == head, "\(text.debugDescription)")
            #expect(left + fedAfter == trailing, "\(text.debugDescription)")
            #expect(decoder.feed([0x41]) == result, "answers the same once finished")
        }
    }

    static let failing: [(String, ProxyResponseHeadDecoder.Failure)] = [
        ("\u{16}\u{3}\u{3}\u{0}", .notHTTP("\\x16")),
        ("SSH-2.0-OpenSSH\r\n", .notHTTP("S")),
        ("HTTP/2 200\r\n\r\n", .notHTTP("HTTP/2")),
        ("HTTP/1.1 20 OK\r\n\r\n", .notHTTP("HTTP/1.1 20 OK")),
        ("HTTP/1.1 2000 OK\r\n\r\n", .notHTTP("HTTP/1.1 2000 OK")),
        ("HTTP/1.1 200 O\u{1}K\r\n\r\n", .notHTTP("HTTP/1.1 200 O\\x01K")),
        ("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", .badField("no colon here")),
        ("HTTP/1.1 200 OK\r\n: empty name\r\n\r\n", .badField(": empty name")),
    ]

    @Test("what is no answer fails, as early as it can be told", arguments: Chunking.all)
    func failures(chunking: Chunking) {
        for (text, failure) in Self.failing {
            var decoder = ProxyResponseHeadDecoder()
            var result: ProxyResponseHeadDecoder.Step = .needMore
            for chunk in chunking.split(Array(text.utf8)) where result == .needMore {
                result = decoder.feed(chunk)
            }
            #expect(result == .failed(failure), "\(text.debugDescription)")
        }
    }

    @Test("a head without end stops at the limit, kept nothing past it", arguments: [Chunking.whole, .byteByByte])
    func limit(chunking: Chunking) {
        var decoder = ProxyResponseHeadDecoder(limit: 64)
        let endless = Array("HTTP/1.1 200 OK\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 200)
        var result: ProxyResponseHeadDecoder.Step = .needMore
        for chunk in chunking.split(endless) where result == .needMore {
            result = decoder.feed(chunk)
        }
        #expect(result == .failed(.tooLarge(limit: 64)))
        #expect(ProxyResponseHeadDecoder.defaultLimit == 16_384)
    }

    @Test("an unfinished head asks for more")
    func unfinished() {
        var decoder = ProxyResponseHeadDecoder()
        #expect(decoder.feed(Array("HTTP/1.1 200 OK\r\nA: b\r\n".utf8)) == .needMore)
        #expect(decoder.feed(Array("\r".utf8)) == .needMore)
        guard case .complete(let head, 0) = decoder.feed(Array("\n".utf8)) else {
            Issue.record("not complete")
            return
        }
        #expect(head.opensTunnel && head.field("a") == "b")
    }
}
