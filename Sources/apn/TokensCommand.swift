import APN
import APNFeedbackStore
import APNWire
import Foundation

/// `apn tokens SUBCOMMAND …`: the token store a feedback service writes (`--store FILE`),
/// read and changed from the command line, one JSON line per answer.
enum TokensCommand {
    static let usage = """
        usage: apn tokens <subcommand> --store FILE [options]
          register TOKEN [--topic T] [--at TIME]   record that the app registered TOKEN (hex) at TIME
          unregister TOKEN [--at TIME]             record that the app unregistered TOKEN at TIME
          import FILE                              register the tokens of FILE (`-`: standard input)
                                                   in one transaction; see `apn tokens import --help`
          list [--active | --inactive]             one line per token, in token order
          show TOKEN                               one token's line; exit 1 when it is unknown
        TIME: UNIX seconds or ISO-8601 (2023-11-14T22:13:20Z); default now.
        A token's line: {"token":"<hex>","topic":"T"|null,"registered_at":UNIX,"active":true|false,
          "deactivated_at":UNIX|null,"last_feedback_at":UNIX|null}
        --store FILE is the SQLite file `apn feedback-service --store` writes; it is created when
        missing. Exits 0 on success, 1 on a store failure (locked, corrupt, written by a newer
        swift-apn) or an unknown token, 2 on bad usage.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let subcommand = arguments.first, !subcommand.hasPrefix("-") else {
            if arguments.first == "--help" || arguments.first == "-h" {
                print(usage)
                return 0
            }
            throw UsageError("missing subcommand (register, unregister, import, list, show)")
        }
        let rest = Array(arguments.dropFirst())
        switch subcommand {
        case "register": return try TokensRegister.run(rest)
        case "unregister": return try TokensUnregister.run(rest)
        case "import": return try TokensImport.run(rest)
        case "list": return try TokensList.run(rest)
        case "show": return try TokensShow.run(rest)
        default: throw UsageError("unknown subcommand \"\(subcommand)\" (register, unregister, import, list, show)")
        }
    }

    /// Parses the flags of one subcommand, `--store` among them; nil after printing `--help`.
    static func flags(
        _ arguments: [String], usage: String, valued: Set<String> = [], switches: Set<String> = []
    ) throws(UsageError) -> (Flags, store: String)? {
        let flags = try Flags(arguments, valued: valued.union(["--store"]), switches: switches)
        if flags.wantsHelp {
            print(usage)
            return nil
        }
        guard let store = flags.value("--store"), !store.isEmpty else { throw UsageError("--store FILE is required") }
        return (flags, store)
    }

    /// The one positional argument a subcommand takes.
    static func single(_ flags: Flags, _ what: String) throws(UsageError) -> String {
        guard flags.positional.count == 1 else {
            throw UsageError(flags.positional.isEmpty
                ? "missing \(what)" : "expected one \(what), got \(flags.positional.count) arguments")
        }
        return flags.positional[0]
    }

    /// A token given on the command line or in an import: an even number of hex digits and
    /// nothing else (strict, unlike `Device`'s reader, so a typo is not read as a token),
    /// any non-empty length.
    static func device(_ text: String) throws(UsageError) -> Device {
        guard let bytes = bytes(fromHex: text), let device = try? Device(token: bytes, validatesLength: false) else {
            throw UsageError("\"\(text)\" is not a device token: it must be an even number of hex digits and nothing else")
        }
        return device
    }

    /// Opens the store; a failure is reported on standard error and is status 1.
    static func open(_ path: String) -> TokenStore? {
        do throws(StoreError) {
            return try TokenStore(path: path)
        } catch {
            fail(error)
            return nil
        }
    }

    /// Reports a store failure on standard error.
    static func fail(_ error: any Error) {
        LineWriter.stderr("apn tokens: \(error)")
    }

    /// A token's JSON line.
    static func line(_ record: TokenRecord) -> JSONValue {
        .object([
            ("token", .string(record.device.hexString)),
            ("topic", record.topic.map { .string($0) } ?? .null),
            ("registered_at", .integer(Int(record.registeredAt))),
            ("active", .bool(record.isActive)),
            ("deactivated_at", record.deactivatedAt.map { .integer(Int($0)) } ?? .null),
            ("last_feedback_at", record.lastFeedbackAt.map { .integer(Int($0)) } ?? .null),
        ])
    }
}
