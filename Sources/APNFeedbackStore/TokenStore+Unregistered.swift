public import APNCore
import Foundation

/// The store takes a provider's 410s (``Provider/Options/unregisteredTokens``) as the
/// feedback tuples they are: each batch goes through ``TokenStore/apply(_:readAt:)``, one
/// transaction, by the feedback service's rule — a token is deactivated when Apple's
/// timestamp is at or after its last registration, kept when the app registered it again
/// later, and the tuple recorded either way (a replay changes nothing).
extension TokenStore: UnregisteredTokenRecorder {
    /// Applies `tokens` as feedback tuples of Apple's timestamps (UNIX seconds, rounded
    /// down), read now.
    public func record(_ tokens: [UnregisteredToken]) throws {
        try apply(tokens.map(\.feedbackEntry), readAt: Int64(Date().timeIntervalSince1970.rounded(.down)))
    }
}
