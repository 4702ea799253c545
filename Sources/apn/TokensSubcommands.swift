import APN
import APNFeedbackStore

/// `apn tokens register TOKEN [--topic T] [--at TIME] --store FILE`.
enum TokensRegister {
    static let usage = """
        usage: apn tokens register TOKEN --store FILE [--topic T] [--at TIME]
        Records that the app registered TOKEN (hex) for topic T at TIME (UNIX seconds or ISO-8601;
        default now), then prints the token's line. A later registration than the one held wins;
        a token deactivated before TIME is active again.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let (flags, path) = try TokensCommand.flags(arguments, usage: usage, valued: ["--topic", "--at"]) else {
            return 0
        }
        let device = try TokensCommand.device(try TokensCommand.single(flags, "TOKEN"))
        let time = try flags.value("--at").map { text throws(UsageError) in try TokenTime.parse(text, what: "--at") }
        guard let store = TokensCommand.open(path) else { return 1 }
        do throws(StoreError) {
            try store.register(device, topic: flags.value("--topic"), at: time ?? TokenTime.now)
            if let record = try store.lookup(device) { LineWriter.stdout(TokensCommand.line(record)) }
            return 0
        } catch {
            TokensCommand.fail(error)
            return 1
        }
    }
}

/// `apn tokens unregister TOKEN [--at TIME] --store FILE`.
enum TokensUnregister {
    static let usage = """
        usage: apn tokens unregister TOKEN --store FILE [--at TIME]
        Records that the app unregistered TOKEN at TIME (default now): it becomes inactive unless
        it was registered again after TIME. Prints the token's line; exits 1 for an unknown token.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let (flags, path) = try TokensCommand.flags(arguments, usage: usage, valued: ["--at"]) else { return 0 }
        let device = try TokensCommand.device(try TokensCommand.single(flags, "TOKEN"))
        let time = try flags.value("--at").map { text throws(UsageError) in try TokenTime.parse(text, what: "--at") }
        guard let store = TokensCommand.open(path) else { return 1 }
        do throws(StoreError) {
            try store.unregister(device, at: time ?? TokenTime.now)
            return try TokensShow.printRecord(of: device, in: store)
        } catch {
            TokensCommand.fail(error)
            return 1
        }
    }
}

/// `apn tokens list [--active | --inactive] --store FILE`.
enum TokensList {
    static let usage = """
        usage: apn tokens list --store FILE [--active | --inactive]
        Prints one line per token (all, only active, or only inactive ones), in token order.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let (flags, path) = try TokensCommand.flags(arguments, usage: usage, switches: ["--active", "--inactive"])
        else { return 0 }
        guard flags.positional.isEmpty else { throw UsageError("list takes no arguments, got \"\(flags.positional[0])\"") }
        let active = flags.switches.contains("--active")
        let inactive = flags.switches.contains("--inactive")
        guard !(active && inactive) else { throw UsageError("--active and --inactive exclude each other") }
        guard let store = TokensCommand.open(path) else { return 1 }
        do {
            try store.list(active ? .active : inactive ? .inactive : .all) { LineWriter.stdout(TokensCommand.line($0)) }
            return 0
        } catch {
            TokensCommand.fail(error)
            return 1
        }
    }
}

/// `apn tokens show TOKEN --store FILE`.
enum TokensShow {
    static let usage = """
        usage: apn tokens show TOKEN --store FILE
        Prints the token's line; exits 1 ("unknown token") when the store does not hold it.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let (flags, path) = try TokensCommand.flags(arguments, usage: usage) else { return 0 }
        let device = try TokensCommand.device(try TokensCommand.single(flags, "TOKEN"))
        guard let store = TokensCommand.open(path) else { return 1 }
        do throws(StoreError) {
            return try printRecord(of: device, in: store)
        } catch {
            TokensCommand.fail(error)
            return 1
        }
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
