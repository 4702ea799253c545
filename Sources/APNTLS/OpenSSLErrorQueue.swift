internal import COpenSSL

/// OpenSSL's thread-local error queue: cleared before each call, drained into the thrown
/// error after it (STYLE.md, "Wrapping a C library").
enum OpenSSLErrorQueue {
    /// Forgets whatever earlier calls left on this thread's queue.
    static func clear() {
        // Every wrapper clears the queue before its first OpenSSL call: the one place that
        // runs before any call initialises OpenSSL with its atexit cleanup.
        OpenSSLLibrary.initialize()
        ERR_clear_error()
    }

    /// Removes and returns every queued error, oldest first, as OpenSSL's text plus any
    /// extra data string the failing function attached.
    static func drain() -> [String] {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            var data: UnsafePointer<CChar>?
            var flags: Int32 = 0
            let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
            if code == 0 { break }
            ERR_error_string_n(code, &buffer, buffer.count)
            var message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if flags & ERR_TXT_STRING != 0, let data, data.pointee != 0 {
                message += " (\(String(cString: data)))"
            }
            messages.append(message)
        }
        return messages
    }

    /// The reason code of the oldest queued error without removing it, or 0.
    static func peekReason() -> Int32 {
        ERR_GET_REASON(ERR_peek_error())
    }
}

extension TLSError {
    /// An error whose evidence is OpenSSL's queue, drained now.
    static func openSSL(_ kind: Kind, _ context: String, path: String? = nil) -> TLSError {
        TLSError(kind, context, openSSLErrors: OpenSSLErrorQueue.drain(), path: path)
    }
}
