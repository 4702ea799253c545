import APN
import Foundation

/// `apn channels create|get|list|delete`: Apple's channel management API for broadcast push
/// (``BroadcastChannels``). Each prints JSON lines on standard output; Apple's refusal goes
/// to standard error with its reason and `apns-request-id`, and exits 1.
enum ChannelsCommand: Subcommand {
    static let name = "channels"
    static let summary = "create, read, list and delete broadcast channels (iOS 18 broadcast push)"
    static let synopsis = "(create | get ID | list | delete ID) [options]"
    static var subcommands: [any Subcommand.Type] {
        [ChannelsCreate.self, ChannelsGet.self, ChannelsList.self, ChannelsDelete.self]
    }
    static let epilogue: String? = """
        Broadcast to a channel with `apn send --http2 --channel ID --event update|end ...`.
        """

    /// The flags every channel command takes.
    static let flagGroups = [
        CredentialFlags.group(
            address: "the channel management API", sandbox: "\(BroadcastChannels.sandboxHost):\(BroadcastChannels.sandboxPort)",
            production: "\(BroadcastChannels.productionHost):\(BroadcastChannels.productionPort)"),
        FlagGroup(
            "Provider tokens and the app:",
            ProviderFlags.authentication + [
                .valued("--topic", "BUNDLE_ID", "the app's bundle id (required with provider tokens)"),
                ProxyFlag.flag,
                .valued("--request-timeout", "SECONDS", "how long Apple may take to answer", default: "30"),
            ]),
        LogFlags.group,
    ]

    static let epilogueOfEach = """
        Exits 0 when Apple accepted the request, 1 when it refused it (the reason and apns-request-id on
        standard error) or no answer came, 2 on bad usage.
        """

    /// Runs `body` with a ``BroadcastChannels`` for `flags`: its exit status, or 1 with
    /// the error on standard error.
    static func run(
        _ flags: Flags, command: String, _ body: @escaping @Sendable (BroadcastChannels) async throws(ProviderError) -> Void
    ) throws(UsageError) -> Int32 {
        var options = BroadcastChannels.managementOptions(try ProviderFlags.authenticatedOptions(flags))
        try ProviderFlags.applyRequestTimeout(flags, to: &options)
        try ProviderFlags.requireCredentials(options, flags)
        options.proxy = try ProxyFlag.proxy(flags, host: options.host)
        let channels = BroadcastChannels(options: options)
        return runBlocking {
            let status: Int32
            do throws(ProviderError) {
                try await body(channels)
                status = 0
            } catch {
                LineWriter.stderr("apn channels \(command): \(ErrorText.message(error))")
                // What was given cannot be sent (an id that is not base64): bad usage.
                status = error.code == .invalidNotification ? 2 : 1
            }
            await channels.shutdown()
            return status
        }
    }

    /// The one positional argument, a channel id.
    static func channelID(_ flags: Flags, command: String) throws(UsageError) -> String {
        guard flags.positional.count == 1, let id = flags.positional.first, !id.isEmpty else {
            throw UsageError("\(command) takes one channel ID")
        }
        return id
    }

    /// A channel as a line: its id, and its policy when known.
    static func line(_ channel: BroadcastChannel) -> JSONValue {
        var members: [(String, JSONValue)] = [("channel_id", .string(channel.id))]
        if let policy = channel.storagePolicy {
            members.append(("message_storage_policy", .integer(policy.rawValue)))
            members.append(("push_type", .string("LiveActivity")))
        }
        return .object(members)
    }
}

/// A channel command: the channel flags, the exit statuses, and for one naming a channel
/// its `ID` argument.
protocol ChannelSubcommand: Subcommand {}

extension ChannelSubcommand {
    static var flagGroups: [FlagGroup] { ChannelsCommand.flagGroups }
    static var epilogue: String? { ChannelsCommand.epilogueOfEach }
    static var arguments: String { "ID" }
    static var synopsis: String { "ID [options]" }
}

/// `apn channels create --message-storage-policy 0|1`.
enum ChannelsCreate: ChannelSubcommand {
    static let arguments = ""
    static let name = "create"
    static let summary = "create a channel; prints its id"
    static let synopsis = "--message-storage-policy 0|1 [options]"
    static let flagGroups =
        [
            FlagGroup(
                "The channel:",
                [
                    .valued(
                        "--message-storage-policy", "0|1",
                        "0: no message stored (broadcasts need --expiry 0); 1: the most recent message kept up to 8 hours")
                ])
        ] + ChannelsCommand.flagGroups

    static func run(_ flags: Flags) throws -> Int32 {
        guard flags.positional.isEmpty else { throw UsageError("create takes no arguments") }
        guard let text = flags.value("--message-storage-policy") else {
            throw UsageError("give --message-storage-policy 0 (no message stored) or 1 (most recent message stored)")
        }
        guard let value = Int(text), let policy = MessageStoragePolicy(rawValue: value) else {
            throw UsageError("--message-storage-policy: \"\(text)\" is not 0 or 1")
        }
        return try ChannelsCommand.run(flags, command: name) { (channels) throws(ProviderError) in
            LineWriter.stdout(ChannelsCommand.line(try await channels.create(storagePolicy: policy)))
        }
    }
}

/// `apn channels get ID`.
enum ChannelsGet: ChannelSubcommand {
    static let name = "get"
    static let summary = "print a channel's storage policy"

    static func run(_ flags: Flags) throws -> Int32 {
        let id = try ChannelsCommand.channelID(flags, command: name)
        return try ChannelsCommand.run(flags, command: name) { (channels) throws(ProviderError) in
            LineWriter.stdout(ChannelsCommand.line(try await channels.read(id)))
        }
    }
}

/// `apn channels list`.
enum ChannelsList: ChannelSubcommand {
    static let name = "list"
    static let arguments = ""
    static let synopsis = "[options]"
    static let summary = "print the id of every channel of the app, a line each"

    static func run(_ flags: Flags) throws -> Int32 {
        guard flags.positional.isEmpty else { throw UsageError("list takes no arguments") }
        return try ChannelsCommand.run(flags, command: name) { (channels) throws(ProviderError) in
            for id in try await channels.list() { LineWriter.stdout(ChannelsCommand.line(BroadcastChannel(id: id))) }
        }
    }
}

/// `apn channels delete ID`.
enum ChannelsDelete: ChannelSubcommand {
    static let name = "delete"
    static let summary = "delete a channel, for good"

    static func run(_ flags: Flags) throws -> Int32 {
        let id = try ChannelsCommand.channelID(flags, command: name)
        return try ChannelsCommand.run(flags, command: name) { (channels) throws(ProviderError) in
            try await channels.delete(id)
            LineWriter.stdout(.object([("channel_id", .string(id)), ("deleted", .bool(true))]))
        }
    }
}
