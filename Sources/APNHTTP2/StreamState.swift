/// What a session keeps about one open stream: the message being received, the body being
/// sent. Removed when the stream closes, so memory follows the open streams.
struct StreamState {
    /// The header fields received so far (trailers are appended after the headers).
    var headers: [HTTP2Header] = []
    /// Header bytes received so far, counted as SETTINGS_MAX_HEADER_LIST_SIZE counts them.
    var headerListSize = 0
    /// Where the current header block starts in `headers`: an informational (1xx)
    /// response's block is dropped when the final response follows.
    var blockStart = 0
    /// The body received so far.
    var body: [UInt8] = []
    /// The body to send, and how much of it nghttp2 has taken.
    var outgoing: [UInt8] = []
    var outgoingOffset = 0
    /// The stream broke a limit and was reset: whatever still arrives on it is dropped.
    var rejected = false
    /// The code we reset the stream with, for a request reset before it was ever sent.
    var localResetCode: HTTP2ErrorCode?

    init(outgoing: [UInt8] = []) {
        self.outgoing = outgoing
    }
}

extension StreamState {
    /// Moves the received message out, leaving the stream with nothing received.
    mutating func takeMessage() -> (headers: [HTTP2Header], body: [UInt8]) {
        defer {
            headers = []
            body = []
        }
        return (headers, body)
    }

    /// Copies the next bytes of the body to send into `buffer`; `finished` with the last.
    /// The body is released once it has all been copied.
    mutating func readOutgoing(into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, finished: Bool) {
        let count = min(buffer.count, outgoing.count - outgoingOffset)
        outgoing.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[outgoingOffset..<outgoingOffset + count]))
        }
        outgoingOffset += count
        guard outgoingOffset == outgoing.count else { return (count, false) }
        outgoing = []
        outgoingOffset = 0
        return (count, true)
    }
}
