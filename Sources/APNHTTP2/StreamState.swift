/// What a session keeps about one open stream: the message being received, the body being
/// sent. Removed when the stream closes, so memory follows the open streams.
struct StreamState {
    /// The message's fields received so far (trailers after the headers), as bytes: a
    /// request's for a server, a response's for a client. A reader makes strings only of
    /// what it keeps (a provider's answer: its status and `apns-id`, parsed from bytes).
    var fields = HTTP2HeaderList()
    /// Header bytes received so far, counted as SETTINGS_MAX_HEADER_LIST_SIZE counts them.
    var headerListSize = 0
    /// Where the current header block starts in `fields` (bytes, fields): an informational
    /// (1xx) response's block is dropped when the final response follows.
    var blockStart = (bytes: 0, count: 0)
    /// The body received so far.
    var body: [UInt8] = []
    /// The body to send, and how much of it nghttp2 has taken.
    var outgoing: [UInt8] = []
    var outgoingOffset = 0
    /// The stream broke a limit and was reset: whatever still arrives on it is dropped.
    var rejected = false
    /// Its complete message was reported (a client's response).
    var reported = false
    /// The code we reset the stream with, for a request reset before it was ever sent.
    var localResetCode: HTTP2ErrorCode?

    /// Nothing received, nothing to send. An initializer of its own: built through a default
    /// argument of ``init(outgoing:)``, an empty state came out as a copy and a destruction
    /// of one.
    init() {}

    /// A client's stream, with the request body to send.
    init(outgoing: [UInt8]) {
        self.outgoing = outgoing
    }
}

extension StreamState {
    /// A new header block (trailers, or a final response after a 1xx) starts.
    mutating func startHeaderBlock() {
        blockStart = (fields.byteCount, fields.count)
    }

    /// Drops the current header block's fields (a 1xx response's).
    mutating func removeCurrentBlock() {
        fields.truncate(toByteCount: blockStart.bytes, count: blockStart.count)
    }

    /// Moves the received message out, leaving the stream with nothing received.
    mutating func takeMessage() -> (fields: HTTP2HeaderList, body: [UInt8]) {
        defer {
            fields = HTTP2HeaderList()
            body = []
            blockStart = (0, 0)
        }
        return (fields, body)
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
