internal import COpenSSL
internal import Glibc

extension TLSConnection {
    /// Turns a failed (`<= 0`) OpenSSL I/O result into a step, draining the error queue.
    /// `errno` is the value saved right after the call. `describe` is only called for a
    /// failure: want-read and want-write are the common, hot results.
    func classify(_ result: Int32, errno: Int32, kind: TLSError.Kind, _ describe: @autoclosure () -> String) -> TLSStep {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            return .wantRead
        case SSL_ERROR_WANT_WRITE:
            return .wantWrite
        case SSL_ERROR_ZERO_RETURN:
            return .closed(clean: true)
        case SSL_ERROR_SYSCALL:
            let errors = OpenSSLErrorQueue.drain()
            if errors.isEmpty && errno == 0 { return .closed(clean: false) }
            if errno == ECONNRESET || errno == EPIPE {
                return .failed(TLSError(.connectionReset, describe(), openSSLErrors: errors, errno: errno))
            }
            return .failed(TLSError(kind, describe(), openSSLErrors: errors, errno: errno == 0 ? nil : errno))
        case SSL_ERROR_SSL:
            if OpenSSLErrorQueue.peekReason() == SSL_R_UNEXPECTED_EOF_WHILE_READING {
                // OpenSSL 3 reports a TCP EOF without close_notify as an error.
                OpenSSLErrorQueue.clear()
                return .closed(clean: false)
            }
            let reason = OpenSSLErrorQueue.peekReason()
            let errors = OpenSSLErrorQueue.drain()
            if kind == .handshake, reason == SSL_R_NO_APPLICATION_PROTOCOL {
                // Our own ALPN callback found nothing shared: a refusal, not a broken handshake.
                return .failed(TLSError(.applicationProtocolRefused, describe(), openSSLErrors: errors))
            }
            if kind != .handshake, reason >= SSL_AD_REASON_OFFSET, reason < SSL_AD_REASON_OFFSET + 256 {
                // OpenSSL reports a fatal alert from the peer as reason 1000 + the alert.
                let alert = UInt8(truncatingIfNeeded: reason - SSL_AD_REASON_OFFSET)
                return .failed(TLSError(.alertReceived, describe(), openSSLErrors: errors, alert: alert))
            }
            let verify = SSL_get_verify_result(ssl)
            if verify != Int(X509_V_OK) {
                let text = String(cString: X509_verify_cert_error_string(verify))
                let result = TLSError.VerifyResult(code: Int32(truncatingIfNeeded: verify), message: text)
                return .failed(TLSError(.verify, describe(), openSSLErrors: errors, verifyResult: result))
            }
            return .failed(TLSError(kind, describe(), openSSLErrors: errors))
        default:
            return .failed(TLSError(kind, describe(), openSSLErrors: OpenSSLErrorQueue.drain(), errno: errno == 0 ? nil : errno))
        }
    }
}

