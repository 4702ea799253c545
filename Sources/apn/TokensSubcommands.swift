import APN
import APNFeedbackStore

/// `apn tokens register TOKEN [--topic T] [--at TIME] --store FILE`.
enum TokensRegister: Subcommand {
    static let name = "register"
    static let arguments = "TOKEN [--topic T] [--at TIME]"
    static let summary = "record that the app registered TOKEN (hex, 1 to 100 bytes) at TIME"
    static let synopsis = "TOKEN --store FILE [--topic T] [--at TIME]"
    static let about: String? = """
        Records that the app registered TOKEN (hex, 1 to 100 bytes) for topic T at TIME (UNIX seconds or
        ISO-8601; default now), then prints the token's line. A later registration than the one held wins;
        a token deactivated before TIME is active again.
        """
    static let flagGroups = [
        TokensCommand.storeGroup,
        FlagGroup([
            .valued("--topic", "T", "the app's topic (bundle id)"),
            .valued("--at", "TIME", "when the app registered it (default now)"),
        ]),
    ]

    static func run(_ flags: Flags) throws -> Int32 {
        let path = try TokensCommand.store(flags)
        let device = try TokensCommand.device(try TokensCommand.single(flags, "TOKEN"), registering: true)
        let time = try flags.value("--at").map { text throws(UsageError) in try TokenTime.parse(text, what: "--at") }
        return TokensCommand.withStore(path) { store in
            try store.register(device, topic: flags.value("--topic"), at: time ?? TokenTime.now)
            if let record = try store.lookup(device) { LineWriter.stdout(TokensCommand.line(record)) }
            return 0
        }
    }
}

/// `apn tokens unregister TOKEN [--at TIME] --store FILE`.
enum TokensUnregister: Subcommand {
    static let name = "unregister"
    static let arguments = "TOKEN [--at TIME]"
    static let summary = "record that the app unregistered TOKEN at TIME"
    static let synopsis = "TOKEN --store FILE [--at TIME]"
    static let about: String? = """
        Records that the app unregistered TOKEN at TIME (default now): it becomes inactive unless
        it was registered again after TIME. Prints the token's line; exits 1 for an unknown token.
        """
    static let flagGroups = [
        TokensCommand.storeGroup, FlagGroup([.valued("--at", "TIME", "when the app unregistered it (default now)")]),
    ]

    static func run(_ flags: Flags) throws -> Int32 {
        let path = try TokensCommand.store(flags)
        let device = try TokensCommand.device(try TokensCommand.single(flags, "TOKEN"))
        let time = try flags.value("--at").map { text throws(UsageError) in try TokenTime.parse(text, what: "--at") }
        return TokensCommand.withStore(path) { store in
            try store.unregister(device, at: time ?? TokenTime.now)
            return try TokensShow.printRecord(of: device, in: store)
        }
    }
}

/// `apn tokens list [--active | --inactive] --store FILE`.
enum TokensList: Subcommand {
    static let name = "list"
    static let arguments = "[--active | --inactive]"
    static let summary = "one line per token, in token order"
    static let synopsis = "--store FILE [--active | --inactive]"
    static let about: String? = "Prints one line per token (all, only active, or only inactive ones), in token order."
    static let flagGroups = [TokensCommand.storeGroup, TokensCommand.stateGroup]

    static func run(_ flags: Flags) throws -> Int32 {
        let path = try TokensCommand.store(flags)
        guard flags.positional.isEmpty else { throw UsageError("list takes no arguments, got \"\(flags.positional[0])\"") }
        let filter = try TokensCommand.filter(flags)
        return TokensCommand.withStore(path) { store in
            try store.list(filter) { record in
                guard !LineWriter.isStandardOutputClosed else { throw ReaderGone() }
                LineWriter.stdout(TokensCommand.line(record))
            }
            return 0
        }
    }
}

/// Stops a listing whose reader has gone (`| head`): nothing more would be read.
struct ReaderGone: Error {}

/// `apn tokens show TOKEN --store FILE`.
enum TokensShow: Subcommand {
    static let name = "show"
    static let arguments = "TOKEN"
    static let summary = "one token's line; exit 1 when it is unknown"
    static let synopsis = "TOKEN --store FILE"
    static let about: String? = "Prints the token's line; exits 1 (\"unknown token\") when the store does not hold it."
    static let flagGroups = [TokensCommand.storeGroup]

    static func run(_ flags: Flags) throws -> Int32 {
        let path = try TokensCommand.store(flags)
        let device = try TokensCommand.device(try TokensCommand.single(flags, "TOKEN"))
        return TokensCommand.withStore(path) { store in try printRecord(of: device, in: store) }
    }

    /// Prints the token's line: 0, or 1 with "unknown token" when the store does not hold it.
    static func printRecord(of device: Device, in store: TokenStore) throws(StoreError) -> Int32 {
        guard let record = try store.lookup(device) else {
            LineWriter.stderr("apn tokens: unknown token \(device.hexString)")
            return 1
        }
        LineWriter.stdout(TokensCommand.line(record))
        return 0
    }
}
