import APN
import APNFeedbackStore
import APNWire
import Foundation

/// `apn tokens SUBCOMMAND …`: the token store a feedback service writes (`--store FILE`),
/// read and changed from the command line, one JSON line per answer.
enum TokensCommand: Subcommand {
    static let name = "tokens"
    static let summary = "register, unregister, import, list, show, count, export, delete and prune the tokens of that store"
    static let synopsis = "<subcommand> --store FILE [options]"
    static var subcommands: [any Subcommand.Type] {
        [
            TokensRegister.self, TokensUnregister.self, TokensImport.self, TokensList.self, TokensShow.self,
            TokensCount.self, TokensExport.self, TokensDelete.self, TokensPrune.self,
        ]
    }
    static let epilogue: String? = """
        TIME: UNIX seconds or ISO-8601 (2023-11-14T22:13:20Z); default now.
        A token's line: {"token":"<hex>","topic":"T"|null,"registered_at":UNIX,"active":true|false,
          "deactivated_at":UNIX|null,"last_feedback_at":UNIX|null}
        --store FILE is the SQLite file `apn feedback-service --store` writes (docs/FEEDBACK-SERVICE.md,
        "The token store's schema"); it is created when missing. Options may come before the subcommand
        (apn tokens --store FILE list). Exits 0 on success, 1 on a store failure (locked, corrupt,
        written by a newer swift-apn) or an unknown token, 2 on bad usage.
        """

    /// `--store FILE`, which every subcommand takes.
    static let storeGroup = FlagGroup([
        .valued("--store", "FILE", "the token store (SQLite; created when missing), as `apn feedback-service --store`")
    ])

    /// `--active` and `--inactive`, for the subcommands that read a part of the store.
    static let stateGroup = FlagGroup([
        .toggle("--active", "only tokens notifications should still go to"),
        .toggle("--inactive", "only tokens deactivated by feedback or unregistration"),
    ])

    /// `--store FILE`, required.
    static func store(_ flags: Flags) throws(UsageError) -> String {
        guard let store = flags.value("--store"), !store.isEmpty else { throw UsageError("--store FILE is required") }
        return store
    }

    /// `--active`, `--inactive` or neither.
    static func filter(_ flags: Flags) throws(UsageError) -> TokenStore.Filter {
        let active = flags.has("--active")
        let inactive = flags.has("--inactive")
        guard !(active && inactive) else { throw UsageError("--active and --inactive exclude each other") }
        return active ? .active : inactive ? .inactive : .all
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
    /// nothing else (strict, unlike `Device`'s reader, so a typo is not read as a token).
    /// A registration takes 1 to 100 bytes (``Device/tokenLengths``, what Apple's tokens
    /// are); one looked up, deleted or named by feedback may be any length, so that what an
    /// older swift-apn or the feedback service stored can still be found.
    static func device(_ text: String, registering: Bool = false) throws(UsageError) -> Device {
        guard let bytes = bytes(fromHex: text), !bytes.isEmpty else {
            throw UsageError("\"\(text.prefix(300))\" is not a device token: it must be an even number of hex digits and nothing else")
        }
        if registering && !Device.tokenLengths.contains(bytes.count) {
            throw UsageError(
                "a device token is \(Device.tokenLengths.lowerBound) to \(Device.tokenLengths.upperBound) bytes "
                    + "(\(Device.tokenLengths.lowerBound * 2) to \(Device.tokenLengths.upperBound * 2) hex digits); "
                    + "this one is \(bytes.count)")
        }
        guard let device = try? Device(token: bytes, validatesLength: false) else {
            throw UsageError("\"\(text.prefix(300))\" is not a device token")
        }
        return device
    }

    /// Opens the store; a failure is reported on standard error and is status 1.
    static func open(_ path: String) -> TokenStore? {
        do throws(StoreError) {
            return try TokenStore(location: path)
        } catch {
            fail(error)
            return nil
        }
    }

    /// Opens the store at `path` and runs `body` with it: its status, or 1 after reporting a
    /// store failure (0 when a listing stopped because its reader went away).
    static func withStore(_ path: String, _ body: (TokenStore) throws -> Int32) -> Int32 {
        guard let store = open(path) else { return 1 }
        do {
            return try body(store)
        } catch is ReaderGone {
            return 0
        } catch {
            fail(error)
            return 1
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
