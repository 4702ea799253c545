/// Everything that can go wrong in an ``HTTP2Session``: what failed (``kind``), whether we
/// or the peer caused it (``isRemote``), a sentence of context, and nghttp2's own code.
///
/// `HTTP2Error` is a struct around a private enum (see ``Kind``), so new kinds can be added
/// without breaking code that switches over the existing ones.
package struct HTTP2Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed.
    package let kind: Kind
    /// A sentence saying what was being done, e.g. "submitting a response on stream 3".
    package let context: String
    /// The stream involved, when one is.
    package let streamID: Int32?
    /// nghttp2's error code (`NGHTTP2_ERR_*`, negative), when nghttp2 reported the failure.
    package let libraryCode: Int32?

    /// Creates an error; APNHTTP2 builds these, callers normally only read them.
    package init(_ kind: Kind, _ context: String, streamID: Int32? = nil, libraryCode: Int32? = nil) {
        self.kind = kind
        self.context = context
        self.streamID = streamID
        self.libraryCode = libraryCode
    }

    /// True when the peer sent something invalid (h11's `RemoteProtocolError`); false when
    /// the call itself was invalid in the session's current state (`LocalProtocolError`).
    package var isRemote: Bool { kind.isRemote }

    /// One line a person can act on: the kind, who caused it, the context, nghttp2's text.
    package var description: String {
        var parts = ["HTTP/2 \(kind) (\(isRemote ? "the peer's" : "a local") error): \(context)"]
        if let streamID {
            parts.append("stream \(streamID)")
        }
        if let libraryCode {
            parts.append("nghttp2 \(libraryCode) (\(libraryErrorText(libraryCode)))")
        }
        return parts.joined(separator: " — ")
    }
}
