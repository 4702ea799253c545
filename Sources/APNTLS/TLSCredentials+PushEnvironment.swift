extension TLSCredentials {
    /// Checks that the certificate is marked for `environment` by Apple's push extension
    /// (OID 1.2.840.113635.100.6.3.1 for sandbox, 1.2.840.113635.100.6.3.2 for production),
    /// as node-apn 1.7 did before connecting.
    ///
    /// Optional and separate from loading, so credentials for a mock gateway or a
    /// non-Apple server need not carry the extensions; call it once you know which
    /// gateway you will connect to. A certificate Apple issued for both environments
    /// ("Apple Push Notification service SSL (Sandbox & Production)") passes for either.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/wrongEnvironment`` saying which environment
    ///   was configured, e.g. "certificate does not support configured environment,
    ///   production: true".
    public func checkPushEnvironment(_ environment: PushEnvironment) throws(TLSError) {
        guard certificate.hasExtension(oid: environment.oid) else {
            throw TLSError(
                .wrongEnvironment,
                "certificate \(certificate.subject) does not support configured environment, "
                    + "production: \(environment == .production) (it lacks the \(environment) extension \(environment.oid))")
        }
    }
}
