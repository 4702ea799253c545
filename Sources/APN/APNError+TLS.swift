import APNTLS

extension APNError {
    /// A connection attempt (TCP or TLS handshake) that failed.
    static func connectFailure(_ error: TLSError) -> APNError {
        APNError(code: error.kind == .timeout ? .connectTimeout : .connectionFailed, message: "\(error)")
    }

    /// An established socket that broke; a TLS alert refusing our certificate is the
    /// gateway's refusal (other alerts are failures like any other).
    static func socketFailed(_ error: TLSError) -> APNError {
        APNError(code: error.refusesCertificate ? .refusedByGateway : .connectionFailed, message: "\(error)")
    }
}
