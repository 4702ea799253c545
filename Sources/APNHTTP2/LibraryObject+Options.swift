internal import CNGHTTP2

extension LibraryObject {
    /// An `nghttp2_option`: the session-creation options beyond SETTINGS. nghttp2 copies
    /// them into the session, so this lives only as long as `init` needs it.
    ///
    /// nghttp2's protections against a hostile peer stay at their defaults: at most 1,000
    /// queued PING/SETTINGS acknowledgements (ENHANCE_YOUR_CALM beyond), 32 entries per
    /// SETTINGS frame, 8 CONTINUATION frames per header block, a rate limit on streams the
    /// peer resets (Debian backported the last two to 1.52), a 4 KiB HPACK table for what
    /// we send whatever the peer allows, and HTTP messaging checks on every received header
    /// block.
    static func sessionOptions() throws(HTTP2Error) -> LibraryObject {
        let options = try LibraryObject("nghttp2 options", create: { nghttp2_option_new(&$0) }, delete: { nghttp2_option_del($0) })
        // We use no stream priorities, so closed streams need not be kept for them.
        nghttp2_option_set_no_closed_streams(options.pointer, 1)
        return options
    }
}
