/// What a session keeps about one open stream: the message being received, the body being
/// sent. Removed when the stream closes, so memory follows the open streams.
struct StreamState {
    /// The header fields received so far (trailers are appended after the headers), but
    /// for those still counted in ``reusedCount``: empty while that is above zero.
    var headers: [HTTP2Header] = []
    /// The previous message's fields, when this one's began with the same bytes.
    var reused: [HTTP2Header] = []
    /// How many of the first fields received are `reused`'s first fields, counted rather
    /// than copied: a response like the one before it (a provider's answers are mostly
    /// `:status: 200` alone) is handed out as that one's array, with no allocation. The
    /// first field that differs (or a second header block) copies them into `headers`.
    var reusedCount = 0
    /// Header bytes received so far, counted as SETTINGS_MAX_HEADER_LIST_SIZE counts them.
    var headerListSize = 0
    /// Where the current header block starts in `headers`: an informational (1xx)
    /// response's block is dropped when the final response follows.
    var blockStart = 0
    /// A server's: the request's fields received so far (trailers after the headers). A
    /// client's go to `headers`.
    var requestFields = HTTP2HeaderList()
    /// The body received so far.
    var body: [UInt8] = []
    /// The body to send, and how much of it nghttp2 has taken.
    var outgoing: [UInt8] = []
    var outgoingOffset = 0
    /// The stream broke a limit and was reset: whatever still arrives on it is dropped.
    var rejected = false
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
        if reusedCount > 0 { copyReusedFields(reserving: reused.count) }
        blockStart = headers.count
    }

    /// The fields received so far.
    var fieldCount: Int { reusedCount + headers.count }

    /// Received field `index` (below ``fieldCount``).
    func field(at index: Int) -> HTTP2Header {
        reusedCount > 0 ? reused[index] : headers[index]
    }

    /// Adds received field `name: value` as field `index` (``fieldCount``): counted while it
    /// repeats `previous`' field at that position and every field before it did, otherwise
    /// appended (made by `reuse`).
    mutating func appendField(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, reuse: HeaderReuse
    ) {
        let index = fieldCount
        if index == reusedCount {
            if index == 0 { reused = reuse.previous }
            if index < reused.count && HeaderReuse.matches(reused[index], name: name, value: value) {
                reusedCount += 1
                return
            }
            if index == 0 {
                reused = []
                headers.reserveCapacity(reuse.previous.count)
            } else {
                copyReusedFields(reserving: reuse.previous.count)
            }
        }
        headers.append(reuse.field(at: index, name: name, value: value))
    }

    /// Drops the fields from `start` on (a 1xx response's block).
    mutating func removeFields(from start: Int) {
        if reusedCount > 0 {
            // A first block: the counted fields are all of it (a later block copies them).
            reusedCount = start
            if start == 0 { reused = [] }
        } else {
            headers.removeSubrange(start...)
        }
    }

    /// Moves the counted fields into `headers`, with room for `capacity` fields.
    private mutating func copyReusedFields(reserving capacity: Int) {
        var copied: [HTTP2Header] = []
        copied.reserveCapacity(max(capacity, reusedCount + 1))
        copied.append(contentsOf: reused[..<reusedCount])
        headers = copied
        reused = []
        reusedCount = 0
    }

    /// Moves the received response out, leaving the stream with nothing received.
    mutating func takeMessage() -> (headers: [HTTP2Header], body: [UInt8]) {
        defer {
            headers = []
            reused = []
            reusedCount = 0
            body = []
        }
        guard reusedCount > 0 else { return (headers, body) }
        return (reusedCount == reused.count ? reused : Array(reused[..<reusedCount]), body)
    }

    /// Moves the received request out, leaving the stream with nothing received.
    mutating func takeRequest() -> (fields: HTTP2HeaderList, body: [UInt8]) {
        defer {
            requestFields = HTTP2HeaderList()
            body = []
        }
        return (requestFields, body)
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
