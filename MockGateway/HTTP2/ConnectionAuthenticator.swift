import APNWire
import APNTLS
import APNSupport
import Foundation
import APNGatewayServer

/// Authenticates the requests of one connection, as Apple does: by the client certificate
/// the connection presented, or else by the provider token each request carries.
///
/// A connection keeps the last token it accepted. A request carrying that same token is
/// checked for age only; a different token is decoded and its signature verified once,
/// then becomes the connection's token — unless the connection switched tokens less than
/// ``HTTP2MockGateway/Configuration/minimumTokenUpdateInterval`` ago, which is refused
/// with 429 `TooManyProviderTokenUpdates` (the old token stays).
struct ConnectionAuthenticator {
    /// What a connection's requests are checked against, from the configuration.
    struct Rules: Sendable {
        var providerKeys: [String: HTTP2MockGateway.ProviderKey]
        var tokenMaxAge: Double
        var tokenClockSkew: Double
        var minimumTokenUpdateInterval: Double
        var wallClock: @Sendable () -> Date

        init(_ configuration: HTTP2MockGateway.Configuration) {
            providerKeys = configuration.providerKeys
            tokenMaxAge = configuration.tokenMaxAge.timeInterval
            tokenClockSkew = configuration.tokenClockSkew.timeInterval
            minimumTokenUpdateInterval = configuration.minimumTokenUpdateInterval.timeInterval
            wallClock = configuration.wallClock
        }
    }

    /// Who sent a request, or why it is refused.
    enum Outcome {
        case authenticated(HTTP2MockGateway.Authentication)
        case refused(HTTP2MockGateway.Refusal)
    }

    /// What the connection's client certificate allows.
    struct Certificate {
        /// The topics it may push to.
        var topics: [String]
        /// Marked for the other push environment only: every request is refused with 403
        /// `BadCertificateEnvironment`, as Apple answers each.
        var isForOtherEnvironment: Bool
    }

    private let rules: Rules
    /// The topics of the connection's client certificate; `nil` when it presented none.
    let certificateTopics: [String]?
    /// Whether that certificate is for the other environment only.
    private let certificateIsForOtherEnvironment: Bool
    /// The token the connection uses now, already verified, and who it names.
    private var current: VerifiedToken?

    /// A verified token, boxed: every request of a connection looks at it, and a box copies
    /// for one retain where the fields would cost one each.
    private final class VerifiedToken: Sendable {
        let authorization: String
        let token: Substring
        let claims: ProviderTokenClaims
        let authentication: HTTP2MockGateway.Authentication

        init(authorization: String, token: Substring, claims: ProviderTokenClaims, authentication: HTTP2MockGateway.Authentication) {
            self.authorization = authorization
            self.token = token
            self.claims = claims
            self.authentication = authentication
        }
    }
    /// When the connection took its current token (wall-clock seconds since 1970).
    private var switchedAt = 0.0

    init(rules: Rules, certificate: Certificate?) {
        self.rules = rules
        certificateTopics = certificate?.topics
        certificateIsForOtherEnvironment = certificate?.isForOtherEnvironment ?? false
    }

    /// The wall clock, in seconds since 1970: read once for all the requests of one read.
    var now: Double { rules.wallClock().timeIntervalSince1970 }

    /// Authenticates a request with this `authorization` header (if any) that arrived at
    /// `now` (``now``).
    mutating func authenticate(authorization: String?, now: Double) -> Outcome {
        if certificateTopics != nil {
            return certificateIsForOtherEnvironment ? refuse(.badCertificateEnvironment) : .authenticated(.certificate)
        }
        guard let authorization else { return refuse(.missingProviderToken) }
        // The same header as the last verified one (usually the very same string, which the
        // session reuses for an unchanged field, so the comparison is immediate): no parsing.
        if let current, current.authorization == authorization {
            return isFresh(current.claims, now: now) ? .authenticated(current.authentication) : refuse(.expiredProviderToken)
        }
        guard let token = Self.bearerToken(authorization) else { return refuse(.invalidProviderToken) }
        if let current, current.token == token {
            self.current = VerifiedToken(
                authorization: authorization, token: current.token, claims: current.claims,
                authentication: current.authentication)
            return isFresh(current.claims, now: now) ? .authenticated(current.authentication) : refuse(.expiredProviderToken)
        }
        guard let decoded = try? JSONWebToken.decode(String(token)),
            let key = rules.providerKeys[decoded.claims.keyID], key.teamID == decoded.claims.teamID,
            decoded.isSigned(by: key.key)
        else { return refuse(.invalidProviderToken) }
        guard isFresh(decoded.claims, now: now) else { return refuse(.expiredProviderToken) }
        if current != nil && now - switchedAt < rules.minimumTokenUpdateInterval {
            return refuse(.tooManyProviderTokenUpdates)
        }
        let authentication = HTTP2MockGateway.Authentication.token(
            keyID: decoded.claims.keyID, teamID: decoded.claims.teamID)
        current = VerifiedToken(
            authorization: authorization, token: token, claims: decoded.claims, authentication: authentication)
        switchedAt = now
        return .authenticated(authentication)
    }

    /// The team a token-authenticated connection pushes for.
    var teamID: String? { current?.claims.teamID }

    /// Whether a token issued at `claims.issuedAt` is neither older than the maximum age
    /// nor further in the future than the skew allows.
    private func isFresh(_ claims: ProviderTokenClaims, now: Double) -> Bool {
        let issuedAt = Double(claims.issuedAt)
        return now - issuedAt <= rules.tokenMaxAge && issuedAt - now <= rules.tokenClockSkew
    }

    /// The token in `bearer <token>` (the scheme in any case, as HTTP allows).
    private static func bearerToken(_ authorization: String) -> Substring? {
        let scheme = "bearer "
        guard authorization.utf8.count > scheme.utf8.count,
            authorization.prefix(scheme.count).lowercased() == scheme
        else { return nil }
        return authorization.dropFirst(scheme.count)
    }

    private func refuse(_ reason: ProviderReason) -> Outcome {
        .refused(HTTP2MockGateway.Refusal(reason: reason))
    }
}
