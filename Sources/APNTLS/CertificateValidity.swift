/// When a generated certificate is valid, relative to the moment it is generated.
public struct CertificateValidity: Sendable, Hashable {
    /// Seconds from now to `notBefore` (negative: in the past).
    public let notBeforeOffset: Int
    /// Seconds from now to `notAfter` (negative: already expired).
    public let notAfterOffset: Int

    /// A validity from `notBeforeOffset` to `notAfterOffset` seconds from now.
    public init(notBeforeOffset: Int, notAfterOffset: Int) {
        precondition(notBeforeOffset < notAfterOffset, "notBefore must precede notAfter")
        self.notBeforeOffset = notBeforeOffset
        self.notAfterOffset = notAfterOffset
    }

    /// Valid from an hour ago (tolerating clock skew) for `days` days. Short on purpose:
    /// generated certificates are for tests and the mock gateway, never kept.
    public static func days(_ days: Int) -> CertificateValidity {
        CertificateValidity(notBeforeOffset: -3600, notAfterOffset: days * 86_400)
    }

    /// One day, the default.
    public static let oneDay = days(1)

    /// Valid from two days ago until yesterday: already expired, for negative tests.
    public static let expired = CertificateValidity(notBeforeOffset: -2 * 86_400, notAfterOffset: -86_400)
}
