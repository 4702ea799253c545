// SCRATCH: a throwaway HTTP/2 responder to smoke-test Provider before the HTTP/2 mock lands.
@testable import APN
import APNHTTP2
import APNTLS
import Foundation
import Testing

@Suite("scratch: provider smoke", .timeLimit(.minutes(1)))
struct ScratchSmokeTests {
    @Test func sendsAndGetsAnswers() async throws {
        let authority = try CertificateAuthority(commonName: "scratch CA")
        let server = try authority.issueServerCertificate()
        let context = try TLSServerContext(
            credentials: try server.credentials(), requiresClientCertificate: false, applicationProtocols: ["h2"])
        let listener = try TLSListener(context: context)
        let port = listener.port
        let box = ListenerBox(listener)
        Thread.detachNewThread {
            let connection = try! box.listener.accept(deadline: .now + .seconds(10))
            try! connection.handshake(deadline: .now + .seconds(5))
            let session = try! HTTP2Session(role: .server, configuration: .init())
            var buffer = [UInt8](repeating: 0, count: 65536)
            var out: [UInt8] = []
            while true {
                out.removeAll()
                while session.appendOutput(to: &out) > 0 {}
                var offset = 0
                while offset < out.count {
                    switch out.withUnsafeBytes({ connection.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }) {
                    case .done(let n): offset += n
                    case .wantWrite, .wantRead: _ = try? connection.waitUntil(.writable, deadline: .now + .seconds(1))
                    default: return
                    }
                }
                switch buffer.withUnsafeMutableBytes({ connection.read(into: $0) }) {
                case .done(let n):
                    do { try buffer.withUnsafeBytes { try session.receive(UnsafeRawBufferPointer(rebasing: $0[..<n])) } } catch { return }
                case .wantRead, .wantWrite: _ = try? connection.waitUntil(.readable, deadline: .now + .seconds(1))
                default: return
                }
                for event in session.takeEvents() {
                    if case .request(let id, let headers, _) = event {
                        let bad = headers[":path"]?.hasSuffix("00") == true
                        try? session.submitResponse(
                            streamID: id,
                            headers: [HTTP2Header(":status", bad ? "400" : "200"), HTTP2Header("apns-id", "id-\(id)")],
                            body: bad ? Array(#"{"reason":"BadDeviceToken"}"#.utf8) : [])
                    }
                }
            }
        }
        var options = Provider.Options()
        options.authentication = .existingToken("scratch")
        options.topic = "com.example"
        options.address = "127.0.0.1"
        options.port = port
        options.ca = [.data(Array(try authority.certificate.pem().utf8))]
        let provider = Provider(options: options)
        let devices = (1...300).map { try! Device(token: [UInt8](repeating: UInt8($0 % 256), count: 32)) }
        let responses = await provider.send(PushNotification().setAlertText("hi"), to: devices)
        #expect(responses.count == 300)
        #expect(responses.filter(\.isSuccess).count == 299)
        #expect(responses[255].reason == .badDeviceToken)
        print(responses.prefix(2), responses[255])
        await provider.close()
    }
}

final class ListenerBox: @unchecked Sendable {
    let listener: TLSListener
    init(_ listener: TLSListener) { self.listener = listener }
}
