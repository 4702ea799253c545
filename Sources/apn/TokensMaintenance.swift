import APN
import APNFeedbackStore

/// `apn tokens count --store FILE`.
enum TokensCount: Subcommand {
    static let name = "count"
    static let summary = "how many tokens are active and inactive: {\"active\":N,\"inactive\":N,\"total\":N}"
    static let synopsis = "--store FILE"
    static let flagGroups = [TokensCommand.storeGroup]

    static func run(_ flags: Flags) throws -> Int32 {
        let path = try TokensCommand.store(flags)
        guard flags.positional.isEmpty else { throw UsageError("count takes no arguments, got \"\(flags.positional[0])\"") }
        return TokensCommand.withStore(path) { store in
            let (active, inactive) = try store.counts()
            LineWriter.stdout(
                .object([
                    ("active", .integer(active)), ("inactive", .integer(inactive)), ("total", .integer(active + inactive)),
                ]))
            return 0
        }
    }
}

/// `apn tokens export --store FILE`: the whole store as JSON lines, for another program.
enum TokensExport: Subcommand {
    static let name = "export"
    static let summary = "the whole store as JSON lines: every token, then every feedback tuple"
    static let synopsis = "--store FILE"
    static let about: String? = """
        Prints every token, in token order, then every feedback tuple the store received, in (token, time)
        order, one JSON line each, read from one snapshot:
          {"record":"token","token":"<hex>","topic":"T"|null,"registered_at":UNIX,"active":true|false,
           "deactivated_at":UNIX|null,"last_feedback_at":UNIX|null}
          {"record":"feedback","token":"<hex>","time":UNIX,"read_at":UNIX,"applied":"deactivated|kept|unknown"}
        docs/FEEDBACK-SERVICE.md, "The token store's schema", says what each holds.
        """
    static let flagGroups = [TokensCommand.storeGroup]

    static func run(_ flags: Flags) throws -> Int32 {
        let path = try TokensCommand.store(flags)
        guard flags.positional.isEmpty else { throw UsageError("export takes no arguments, got \"\(flags.positional[0])\"") }
        return TokensCommand.withStore(path) { store in
            try store.snapshot {
                try store.list(.all) { record in
                    guard !LineWriter.isStandardOutputClosed else { throw ReaderGone() }
                    guard case .object(let fields) = TokensCommand.line(record) else { return }
                    LineWriter.stdout(.object([("record", .string("token"))] + fields))
                }
                try store.feedback { tuple in
                    guard !LineWriter.isStandardOutputClosed else { throw ReaderGone() }
                    LineWriter.stdout(
                        .object([
                            ("record", .string("feedback")), ("token", .string(tuple.device.hexString)),
                            ("time", .integer(Int(tuple.time))), ("read_at", .integer(Int(tuple.readAt))),
                            ("applied", .string(tuple.outcome.rawValue)),
                        ]))
                }
            }
            return 0
        }
    }
}

/// `apn tokens delete TOKEN... --store FILE`.
enum TokensDelete: Subcommand {
    static let name = "delete"
    static let arguments = "TOKEN..."
    static let summary = "forget tokens and their feedback, as if never registered"
    static let synopsis = "TOKEN... --store FILE"
    static let about: String? = """
        Deletes each TOKEN's row and the feedback recorded for it, in one transaction, and prints
        {"deleted":N,"unknown":M}; exits 1 (after deleting the others) when some TOKEN was unknown.
        """
    static let flagGroups = [TokensCommand.storeGroup]

    static func run(_ flags: Flags) throws -> Int32 {
        let path = try TokensCommand.store(flags)
        guard !flags.positional.isEmpty else { throw UsageError("missing TOKEN") }
        var devices: [Device] = []
        for text in flags.positional { devices.append(try TokensCommand.device(text)) }
        return TokensCommand.withStore(path) { store in
            var unknown: [Device] = []
            for device in devices where try store.lookup(device) == nil { unknown.append(device) }
            let deleted = try store.delete(devices)
            for device in unknown { LineWriter.stderr("apn tokens: unknown token \(device.hexString)") }
            LineWriter.stdout(.object([("deleted", .integer(deleted)), ("unknown", .integer(unknown.count))]))
            return unknown.isEmpty ? 0 : 1
        }
    }
}

/// `apn tokens prune --inactive-before TIME --store FILE`.
enum TokensPrune: Subcommand {
    static let name = "prune"
    static let arguments = "--inactive-before TIME"
    static let summary = "forget the tokens inactive since before TIME"
    static let synopsis = "--inactive-before TIME --store FILE"
    static let about: String? = """
        Deletes every inactive token deactivated before TIME, and the feedback recorded for it, in
        one transaction; active tokens stay whatever their age. Prints {"pruned":N}.
        """
    static let flagGroups = [
        TokensCommand.storeGroup,
        FlagGroup([.valued("--inactive-before", "TIME", "UNIX seconds or ISO-8601; required")]),
    ]

    static func run(_ flags: Flags) throws -> Int32 {
        let path = try TokensCommand.store(flags)
        guard flags.positional.isEmpty else { throw UsageError("prune takes no arguments, got \"\(flags.positional[0])\"") }
        guard let text = flags.value("--inactive-before") else { throw UsageError("--inactive-before TIME is required") }
        let time = try TokenTime.parse(text, what: "--inactive-before")
        return TokensCommand.withStore(path) { store in
            LineWriter.stdout(.object([("pruned", .integer(try store.prune(inactiveBefore: time)))]))
            return 0
        }
    }
}
