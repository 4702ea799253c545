import APNHTTP2
import FuzzSupport

/// The HTTP/2 client connection preface (RFC 9113 §3.4), which a server expects first.
let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

/// libFuzzer's entry. Byte 0: bit 0 picks the role, the next bits how many chunk-size bytes
/// follow. As a server the session reads the client preface, then the rest in chunks,
/// answering every request; as a client it sends a request, reads a real server's first
/// output, then the rest in chunks. Throwing is fine; crashing is not.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP2(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let mode = input.byte()
    let sizes = Array(input.take(Int(mode >> 1) % 8))
    let chunks = FuzzInput.chunks(of: input.rest(), sizes: sizes)
    if mode & 1 == 0 {
        runServer(chunks)
    } else {
        runClient(chunks)
    }
    return 0
}

/// A server session fed the preface, then `chunks`.
func runServer(_ chunks: [ArraySlice<UInt8>]) {
    guard let session = try? HTTP2Session(role: .server) else { preconditionFailure("no server session") }
    var output: [UInt8] = []
    _ = try? feed(session, clientPreface[...], output: &output)
    for chunk in chunks {
        do { try feed(session, chunk, output: &output) } catch { break }
    }
    drainOutput(session, &output)
}

/// A client session with one request queued, fed a server's first output, then `chunks`.
func runClient(_ chunks: [ArraySlice<UInt8>]) {
    guard let session = try? HTTP2Session(role: .client),
          let server = try? HTTP2Session(role: .server)
    else { preconditionFailure("no sessions") }
    let headers = [
        HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "https"), HTTP2Header(":path", "/3/device/00"),
        HTTP2Header(":authority", "localhost"),
    ]
    _ = try? session.submitRequest(headers: headers, body: Array(#"{"aps":{}}"#.utf8))
    var serverOutput: [UInt8] = []
    _ = server.appendOutput(to: &serverOutput)
    var output: [UInt8] = []
    _ = try? feed(session, serverOutput[...], output: &output)
    for chunk in chunks {
        do { try feed(session, chunk, output: &output) } catch { break }
    }
    drainOutput(session, &output)
}

/// Feeds one chunk, handles the events (a server answers each request) and takes the output.
func feed(_ session: HTTP2Session, _ chunk: ArraySlice<UInt8>, output: inout [UInt8]) throws(HTTP2Error) {
    defer { drainOutput(session, &output) }
    try receive(session, Array(chunk))
    for event in session.takeEvents() {
        if case .request(let streamID, _, let body) = event {
            _ = try? session.submitResponse(streamID: streamID, headers: [HTTP2Header(":status", "200")], body: body)
        }
    }
    precondition(session.activeStreamCount >= 0, "negative stream count")
}

/// Takes whatever the session wants to send, keeping only the last bytes.
func drainOutput(_ session: HTTP2Session, _ output: inout [UInt8]) {
    var rounds = 0
    while session.wantsWrite, rounds < 64 {
        if session.appendOutput(to: &output) == 0 { break }
        rounds += 1
        output.removeAll(keepingCapacity: true)
    }
}

/// `session.receive(bytes)`, with the typed error kept through `withUnsafeBytes`.
func receive(_ session: HTTP2Session, _ bytes: [UInt8]) throws(HTTP2Error) {
    let result: Result<Void, HTTP2Error> = bytes.withUnsafeBytes { raw in
        do throws(HTTP2Error) {
            try session.receive(raw)
            return .success(())
        } catch {
            return .failure(error)
        }
    }
    try result.get()
}
