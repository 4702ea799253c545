internal import CNGHTTP2

/// Owns an `nghttp2_option`: the session-creation options beyond SETTINGS. nghttp2 copies
/// them into the session, so this lives only as long as `init` needs it.
///
/// nghttp2's protections against a hostile peer stay at their defaults: at most 1,000
/// queued PING/SETTINGS acknowledgements (ENHANCE_YOUR_CALM beyond), 32 entries per
/// SETTINGS frame, 8 CONTINUATION frames per header block, a rate limit on streams the
/// peer resets (Debian backported the last two to 1.52), a 4 KiB HPACK table for what we
/// send whatever the peer allows, and HTTP messaging checks on every received header block.
final class SessionOptions {
    let pointer: OpaquePointer

    init() throws(HTTP2Error) {
        var option: OpaquePointer?
        let result = nghttp2_option_new(&option)
        guard result == 0, let option else {
            throw HTTP2Error(.library, "allocating nghttp2 options", libraryCode: result)
        }
        pointer = option
        // We use no stream priorities, so closed streams need not be kept for them.
        nghttp2_option_set_no_closed_streams(option, 1)
    }

    deinit {
        nghttp2_option_del(pointer)
    }
}
