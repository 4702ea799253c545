import APNTLS
import Foundation // Date

/// The `authorization` header a provider sends: a provider token signed with the team's
/// `.p8` key and renewed as it ages, or one given as it is. Owned by the I/O thread.
///
/// Apple refuses tokens older than an hour (`ExpiredProviderToken`) and updates more
/// often than every 20 minutes (`TooManyProviderTokenUpdates`), so a token is renewed
/// after ``Provider/Options/tokenRefreshInterval`` (kept within 20–60 minutes), and early
/// only after an `ExpiredProviderToken` answer and only once it is 20 minutes old: a
/// younger token Apple calls expired means the clocks disagree, which a new token cannot
/// fix.
final class ProviderAuthorization {
    /// Apple's minimum time between token updates.
    static let minimumAge: Int64 = 20 * 60
    /// Apple's maximum token age.
    static let maximumAge: Int64 = 60 * 60

    private enum Source {
        case none
        case fixed(String)
        case signed(keyID: String, teamID: String, key: CredentialSource)
    }

    private let source: Source
    private let refreshAfter: Int64
    private let currentDate: @Sendable () -> Date
    private var signingKey: Result<ES256SigningKey, ProviderError>?
    private(set) var header: String?
    private(set) var issuedAt: Int64?

    init(_ options: Provider.Options) {
        switch options.authentication {
        case .certificate: source = .none
        case .existingToken(let token): source = .fixed(token)
        case .token(let keyID, let teamID, let key): source = .signed(keyID: keyID, teamID: teamID, key: key)
        }
        let seconds = options.tokenRefreshInterval.components.seconds
        refreshAfter = min(max(seconds, Self.minimumAge), Self.maximumAge - 60)
        currentDate = options.currentDate
    }

    /// The seconds since 1970 now, on the provider's wall clock.
    private var now: Int64 { Int64(currentDate().timeIntervalSince1970.rounded(.down)) }

    /// The header value to send now (`bearer …`), signing a new token when the current
    /// one is due; `nil` for certificate authentication. `renewed` says whether a new
    /// token was signed.
    func current() throws(ProviderError) -> (value: String?, renewed: Bool) {
        switch source {
        case .none:
            return (nil, false)
        case .fixed(let token):
            guard !token.isEmpty, ProviderRequest.isValidHeaderValue(token), !token.contains(" ") else {
                throw ProviderError(
                    code: .authentication,
                    message: "the existing provider token is empty or holds spaces or control characters (read from a file? trim its line break)")
            }
            return ("bearer " + token, false)
        case .signed:
            let now = now
            if let header, let issuedAt, now >= issuedAt, now - issuedAt < refreshAfter {
                return (header, false)
            }
            try sign(at: now)
            return (header, true)
        }
    }

    /// After an `ExpiredProviderToken` answer: signs a new token if Apple allows an update
    /// now. Returns whether it did (then the request is worth sending again).
    func renewAfterExpiry() -> Bool {
        guard case .signed = source, let issuedAt else { return false }
        let now = now
        guard now - issuedAt >= Self.minimumAge else { return false }
        do throws(ProviderError) {
            try sign(at: now)
            return true
        } catch {
            return false
        }
    }

    private func sign(at now: Int64) throws(ProviderError) {
        guard case .signed(let keyID, let teamID, let keySource) = source else { return }
        let key = try loadKey(keySource)
        do throws(TLSError) {
            let token = try JSONWebToken.sign(ProviderTokenClaims(keyID: keyID, teamID: teamID, issuedAt: now), with: key)
            header = "bearer " + token
            issuedAt = now
        } catch {
            throw ProviderError(code: .authentication, message: "signing the provider token: \(error)")
        }
    }

    /// Reads the `.p8` key once; a failure is remembered and reported for every request.
    private func loadKey(_ source: CredentialSource) throws(ProviderError) -> ES256SigningKey {
        if let signingKey { return try signingKey.get() }
        let result = Result { () throws(ProviderError) -> ES256SigningKey in try Self.readKey(source).key }
        signingKey = result
        return try result.get()
    }

    /// The `.p8` key `source` holds, and its bytes; a failure names the file.
    static func readKey(_ source: CredentialSource) throws(ProviderError) -> (key: ES256SigningKey, bytes: [UInt8]) {
        let bytes: [UInt8]
        do throws(APNError) {
            bytes = try ClientContextLoader.bytes(of: source)
        } catch {
            throw ProviderError(code: .authentication, message: "the provider token key: \(error.message)")
        }
        do throws(TLSError) {
            return (try ES256SigningKey(pemOrDER: bytes), bytes)
        } catch {
            throw ProviderError(code: .authentication, message: "\(ClientContextLoader.describe(source)): \(error)")
        }
    }
}
