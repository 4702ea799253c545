@_spi(APNBridge) public import APN

/// One sender the bridge serves: the client certificates that identify it, and what its
/// notifications go to Apple with (its credentials and topic). A client of one tenant is
/// served only its own feedback and resend record.
public struct BridgeTenant: Sendable, Hashable {
    /// How a client certificate is recognised.
    public enum Match: Sendable, Hashable {
        /// The SHA-256 fingerprint of the certificate (its DER): one certificate exactly.
        case fingerprint([UInt8])
        /// The subject's UID, which on Apple's push certificates is the bundle id: every
        /// certificate issued for that app, renewals included.
        case userID(String)
    }

    /// How the bridge authenticates to Apple for this tenant. Paths, never key material:
    /// the files are read when the provider starts, and nothing of them is logged.
    public enum Upstream: Sendable, Hashable {
        /// A provider token signed with the `.p8` key at `p8`.
        case token(keyID: String, teamID: String, p8: String)
        /// The push certificate and its key, PEM files.
        case certificate(cert: String, key: String)
    }

    /// The tenant's name in logs and in the token store.
    public var name: String
    /// The certificates that are this tenant's clients; at least one.
    public var matches: [Match]
    /// `apns-topic` for its notifications: the bundle id.
    public var topic: String
    /// Its credentials with Apple.
    public var upstream: Upstream
    /// `apns-push-type` for all its notifications (an MDM server's `mdm`, a VoIP app's
    /// `voip`); `nil` derives it from each payload
    /// (``BridgedNotification/forwarded(topic:pushType:)``).
    public var pushType: PushType?

    /// Creates a tenant.
    public init(name: String, matches: [Match], topic: String, upstream: Upstream, pushType: PushType? = nil) {
        self.name = name
        self.matches = matches
        self.topic = topic
        self.upstream = upstream
        self.pushType = pushType
    }

    /// `base` (host, port, CA, timeouts) with this tenant's authentication and topic.
    public func providerOptions(_ base: Provider.Options) -> Provider.Options {
        var options = base
        options.topic = topic
        switch upstream {
        case .token(let keyID, let teamID, let p8):
            options.authentication = .token(keyID: keyID, teamID: teamID, key: .file(p8))
        case .certificate(let cert, let key):
            options.authentication = .certificate
            options.cert = .file(cert)
            options.key = .file(key)
        }
        return options
    }
}
