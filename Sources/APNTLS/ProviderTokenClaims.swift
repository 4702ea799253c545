/// What an APNs provider authentication token says: which key signed it, for which
/// developer team, and when (Apple's "Establishing a token-based connection to APNs").
package struct ProviderTokenClaims: Sendable, Hashable {
    /// The 10-character key identifier Apple shows for the key (the `kid` header parameter,
    /// and the `XXXXXXXXXX` of `AuthKey_XXXXXXXXXX.p8`).
    package var keyID: String
    /// The 10-character team identifier of the developer account (the `iss` claim).
    package var teamID: String
    /// When the token was issued, in seconds since 1970-01-01 UTC (the `iat` claim). APNs
    /// refuses a token issued more than an hour ago, and one refreshed more often than
    /// every 20 minutes.
    package var issuedAt: Int64

    /// Claims for a token.
    package init(keyID: String, teamID: String, issuedAt: Int64) {
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
    }
}
