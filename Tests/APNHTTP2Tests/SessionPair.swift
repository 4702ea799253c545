import APNHTTP2
import APNTestSupport

/// A client and a server session joined in memory (swift-nio-ssl's `interactInMemory`):
/// each one's output is fed to the other, split as `chunking` says, until neither has
/// anything left to send. Events pile up in `clientEvents` and `serverEvents`.
final class SessionPair {
    let client: HTTP2Session
    let server: HTTP2Session
    var clientEvents: [HTTP2Event] = []
    var serverEvents: [HTTP2Event] = []
    var chunking: Chunking

    init(client: HTTP2Session.Configuration = .init(), server: HTTP2Session.Configuration = .init(),
         chunking: Chunking = .whole) throws {
        self.client = try HTTP2Session(role: .client, configuration: client)
        self.server = try HTTP2Session(role: .server, configuration: server)
        self.chunking = chunking
    }

    /// Moves bytes both ways until both sessions are quiet.
    func exchange() throws {
        var moved = true
        while moved {
            moved = false
            var bytes: [UInt8] = []
            while client.appendOutput(to: &bytes) > 0 {}
            if !bytes.isEmpty {
                moved = true
                try feed(bytes, to: server)
            }
            serverEvents += server.takeEvents()
            bytes.removeAll()
            while server.appendOutput(to: &bytes) > 0 {}
            if !bytes.isEmpty {
                moved = true
                try feed(bytes, to: client)
            }
            clientEvents += client.takeEvents()
        }
    }

    /// Feeds `bytes` to `session` in `chunking`'s pieces.
    func feed(_ bytes: [UInt8], to session: HTTP2Session) throws(HTTP2Error) {
        for chunk in chunking.split(bytes) {
            try session.receive(chunk)
        }
    }

    /// Answers every request the server has received and not answered with `status` and
    /// a body naming the request's `:path`; returns how many were answered.
    @discardableResult
    func answerRequests(status: String = "200", answered: inout Set<Int32>) throws -> Int {
        var count = 0
        for case .request(let streamID, let headers, _) in serverEvents where !answered.contains(streamID) {
            answered.insert(streamID)
            try server.submitResponse(
                streamID: streamID, headers: [HTTP2Header(":status", status)], body: Array((headers[":path"] ?? "").utf8))
            count += 1
        }
        return count
    }
}

/// APNs-like request headers for the device token `token` (hex).
func apnsHeaders(token: String) -> [HTTP2Header] {
    [
        HTTP2Header(":method", "POST"),
        HTTP2Header(":scheme", "https"),
        HTTP2Header(":path", "/3/device/\(token)"),
        HTTP2Header(":authority", "api.push.apple.com"),
        HTTP2Header("apns-topic", "com.example.app"),
        HTTP2Header("apns-push-type", "alert"),
        HTTP2Header("apns-priority", "10"),
        HTTP2Header("apns-expiration", "0"),
    ]
}

/// A 64-digit hex token standing for device `index`.
func token(_ index: Int) -> String {
    let digits = String(index, radix: 16)
    return String(repeating: "0", count: 64 - digits.count) + digits
}

/// One HTTP/2 frame as the bytes say it: RFC 9113 §4.1's 9-byte header, then the payload.
struct Frame: Equatable {
    var type: UInt8
    var flags: UInt8
    var streamID: UInt32
    var payload: [UInt8]

    /// The frames in `bytes`, which start at a frame boundary and end at one.
    static func parse(_ bytes: [UInt8]) -> [Frame] {
        var frames: [Frame] = []
        var index = 0
        while index + 9 <= bytes.count {
            let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
            let streamID = bytes[index + 5..<index + 9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
            frames.append(Frame(type: bytes[index + 3], flags: bytes[index + 4], streamID: streamID,
                                payload: Array(bytes[index + 9..<min(bytes.count, index + 9 + length)])))
            index += 9 + length
        }
        return frames
    }

    static let goawayType: UInt8 = 7

    /// A GOAWAY frame's error code.
    var goawayErrorCode: UInt32 {
        payload[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}

/// The HTTP/2 client connection preface (RFC 9113 §3.4).
let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

extension HTTP2Session {
    /// `receive` for an array (`withUnsafeBytes` does not pass typed throws through).
    func receive(_ bytes: [UInt8]) throws(HTTP2Error) {
        var failure: HTTP2Error?
        bytes.withUnsafeBytes { raw in
            do throws(HTTP2Error) {
                try receive(raw)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }
}
