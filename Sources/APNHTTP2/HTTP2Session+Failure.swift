internal import CNGHTTP2

// How a session notices that the peer's bytes ended the connection.
extension HTTP2Session {
    /// The error for a negative `nghttp2_session_mem_recv` result. nghttp2 queues no GOAWAY
    /// for these, so one is queued here (PROTOCOL_ERROR for a bad preface,
    /// ENHANCE_YOUR_CALM for a flood), and the session ends once it is sent.
    func receiveFailure(code: Int32) -> HTTP2Error {
        let error = switch code {
        case LibraryCode.badClientMagic:
            HTTP2Error(.badPreface, "the client did not start with the HTTP/2 connection preface", libraryCode: code)
        case LibraryCode.flooded:
            HTTP2Error(.flood, "the peer sent frames to answer faster than it read the answers", libraryCode: code)
        default:
            HTTP2Error(.library, "processing received bytes", libraryCode: code)
        }
        let errorCode: HTTP2ErrorCode = switch error.kind {
        case .badPreface: .protocolError
        case .flood: .enhanceYourCalm
        default: .internalError
        }
        _ = nghttp2_session_terminate_session(session, errorCode.rawValue)
        return error
    }

    /// Whether nghttp2 has decided to end the connection: it queued a GOAWAY that closes the
    /// session once sent. Within `mem_recv` that is how it answers a connection error (a
    /// frame too large, a bad CONTINUATION, a DATA frame on an idle stream, …), and
    /// `mem_recv` still returns success.
    ///
    /// nghttp2 has no getter for this. `nghttp2_submit_goaway` returns 0 at once, doing
    /// nothing, when the session is terminating; otherwise it refuses a last-stream-id of
    /// one of our own streams (`INVALID_ARGUMENT`) before it queues anything. So asking it
    /// for such a GOAWAY changes nothing either way: 0 means terminating. Should a later
    /// nghttp2 check the argument first, the answer would always be "no" (never a false
    /// alarm); HTTP2SessionFailureTests pins that it says "yes" for a frame too large.
    var libraryIsTerminating: Bool {
        let ourOwnStreamID: Int32 = role == .client ? 1 : 2
        return nghttp2_submit_goaway(session, 0, ourOwnStreamID, 0, nil, 0) == 0
    }
}
