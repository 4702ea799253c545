import APNHTTP2
import FuzzSupport

/// Seeds: a real client's bytes after the preface (SETTINGS, WINDOW_UPDATE, a request with
/// a body, then a PING and GOAWAY-free end) for the server; a real server's answer to that
/// request for the client; each whole and in small chunks.
func http2Seeds() throws -> [(name: String, bytes: [UInt8])] {
    let client = try HTTP2Session(role: .client)
    let server = try HTTP2Session(role: .server)
    let headers = [
        HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "https"), HTTP2Header(":path", "/3/device/00"),
        HTTP2Header(":authority", "localhost"), HTTP2Header("apns-topic", "com.example.fuzz"),
    ]
    _ = try client.submitRequest(headers: headers, body: Array(#"{"aps":{"alert":"Hello"}}"#.utf8))
    _ = try client.submitRequest(headers: headers, body: [])
    var clientBytes: [UInt8] = []
    _ = client.appendOutput(to: &clientBytes)
    try receive(server, clientBytes)
    for case .request(let streamID, _, _) in server.takeEvents() {
        try server.submitResponse(
            streamID: streamID, headers: [HTTP2Header(":status", "400"), HTTP2Header("apns-id", "x")],
            body: Array(#"{"reason":"BadDeviceToken"}"#.utf8))
    }
    var serverBytes: [UInt8] = []
    _ = server.appendOutput(to: &serverBytes)
    let afterPreface = Array(clientBytes.dropFirst(clientPreface.count))
    return [
        ("server-whole", [0] + afterPreface),
        ("server-chunked", [6, 9, 1, 24] + afterPreface),
        ("server-settings-only", [0] + afterPreface.prefix(9 + Int(afterPreface[2]))),
        ("client-whole", [1] + serverBytes),
        ("client-chunked", [7, 9, 1, 24] + serverBytes),
    ]
}
