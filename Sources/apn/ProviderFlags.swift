import APN
import Foundation

/// The flags of `apn send --http2`: provider-token authentication (`--key-id`,
/// `--team-id`, `--p8`, or `--provider-token`), the HTTP/2 headers (`--topic`,
/// `--push-type`, `--collapse-id`) and the streams (`--max-streams`). Certificates and
/// the address come from ``CredentialFlags``.
enum ProviderFlags {
    static let usage = """
        HTTP/2 provider API (--http2; default address api.sandbox.push.apple.com:443,
        api.push.apple.com:443 with --production):
          --http2                   send through the HTTP/2 provider API instead of the binary gateway
          --key-id ID --team-id ID --p8 FILE
                                    provider-token authentication with the .p8 key (else the certificate)
          --provider-token JWT      a provider token made elsewhere, sent as it is
          --topic TOPIC             apns-topic (the bundle id; required with provider tokens)
          --push-type TYPE          apns-push-type: \(PushType.documented.map(\.rawValue).joined(separator: ", "))
          --collapse-id ID          apns-collapse-id (at most 64 bytes)
          --max-streams N           streams in flight per connection (default 1000)
          --request-timeout SECONDS how long Apple may take to answer a notification once it is written
                                    (default 30; time queued for a stream does not count); unanswered,
                                    it may have been delivered and is not sent again
          --store FILE              mark every token Apple answers 410 for inactive in this token store
                                    (as `apn feedback-service` does: a later registration keeps it);
                                    the store must take a write before anything is sent; a commit that
                                    fails leaves its tuples in FILE.feedback-recovery-*.jsonl
          --min-free BYTES          room the store's disk must have first (default 1 MiB)
        """

    static let valued: Set<String> = [
        "--key-id", "--team-id", "--p8", "--provider-token", "--topic", "--push-type", "--collapse-id", "--max-streams",
        "--request-timeout", "--store", "--min-free",
    ]
    static let switches: Set<String> = ["--http2"]

    /// The provider options these flags (and the credential flags) ask for.
    static func options(_ flags: Flags) throws(UsageError) -> Provider.Options {
        var options = Provider.Options()
        try CredentialFlags(flags).apply(to: &options.access)
        let tokenFlags = ["--key-id", "--team-id", "--p8"].filter { flags.value($0) != nil }
        if let token = flags.value("--provider-token") {
            guard tokenFlags.isEmpty else { throw UsageError("--provider-token excludes \(tokenFlags[0])") }
            options.authentication = .existingToken(token)
        } else if !tokenFlags.isEmpty {
            guard let keyID = flags.value("--key-id"), let teamID = flags.value("--team-id"),
                let p8 = flags.value("--p8")
            else {
                throw UsageError("provider tokens need all of --key-id, --team-id and --p8")
            }
            options.authentication = .token(keyID: keyID, teamID: teamID, key: .file(p8))
        }
        options.topic = flags.value("--topic")
        if options.authentication != .certificate && options.topic == nil {
            throw UsageError("provider tokens need --topic (apns-topic, the app's bundle id)")
        }
        if let streams = try flags.integer("--max-streams", as: Int.self, in: 1...100_000) {
            options.maxConcurrentStreams = streams
        }
        if let connections = try flags.integer("--max-connections", as: Int.self, in: 1...64) {
            options.maxConnections = connections
        }
        if let text = flags.value("--request-timeout") {
            guard let seconds = Double(text), seconds >= 0.1, seconds <= 3_600 else {
                throw UsageError("--request-timeout: \"\(text)\" is not a number of seconds in 0.1...3600")
            }
            options.requestTimeout = .milliseconds(Int((seconds * 1_000).rounded()))
        }
        return options
    }

    /// `--store FILE` and `--min-free BYTES`, when `--store` is given.
    static func store(_ flags: Flags) throws(UsageError) -> (path: String, minimumFreeBytes: Int)? {
        let room = try flags.integer("--min-free", as: Int.self, in: 0...(1 << 40))
        guard let path = flags.value("--store") else {
            if room != nil { throw UsageError("--min-free needs --store FILE") }
            return nil
        }
        guard !path.isEmpty else { throw UsageError("--store: give a file") }
        return (path, room ?? 1 << 20)
    }

    /// Applies `--push-type` and `--collapse-id` to the notification.
    static func applyHeaders(_ flags: Flags, to note: APN.Notification) throws(UsageError) {
        if let type = flags.value("--push-type") {
            guard PushType.documented.contains(PushType(rawValue: type)) else {
                throw UsageError(
                    "--push-type: \"\(type)\" is not one of \(PushType.documented.map(\.rawValue).joined(separator: ", "))")
            }
            note.setPushType(PushType(rawValue: type))
        }
        if let collapseId = flags.value("--collapse-id") { note.setCollapseId(collapseId) }
    }

    /// The flags only `--http2` gives meaning to, among those given.
    static func http2Only(_ flags: Flags) -> [String] {
        valued.sorted().filter { flags.value($0) != nil }
    }
}

