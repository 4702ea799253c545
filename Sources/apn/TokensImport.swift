import APN
import APNFeedbackStore
import Foundation

/// `apn tokens import FILE --store FILE`: bulk registration in one transaction.
enum TokensImport: Subcommand {
    static let name = "import"
    static let arguments = "FILE"
    static let summary = "register the tokens of FILE (`-`: standard input) in one transaction"
    static let synopsis = "FILE --store FILE"
    static let flagGroups = [TokensCommand.storeGroup]
    static let about: String? = """
        Registers the tokens of FILE (`-`: standard input) in one transaction. One token per line:
            TOKEN [TIME [TOPIC]]
        fields separated by spaces or tabs; TOKEN in hex (1 to 100 bytes); TIME in UNIX seconds or ISO-8601, or `-`
        (or absent) for now; TOPIC optional. Blank lines and lines starting with # are skipped.
        A feedback tuple is a JSON line, as `apn feedback-service` writes those it could not commit
        (its recovery file):
            {"event":"feedback","time":UNIX,"date":"ISO-8601","token":"<hex>"}
        ("date" optional, not read). It is applied as the service would have: the token is
        deactivated when TIME is at or after its last registration, kept when it was registered
        later; a tuple already in the store changes nothing, so a file can be imported twice.
        A bad line is reported on standard error with its line number and skipped; the others are
        imported. Prints {"imported":N,"bad_lines":M}, with feedback lines
        {"imported":N,"feedback":F,"deactivated":D,"kept":K,"unknown":U,"duplicates":X,"bad_lines":M}.
        Exits 0 when every line was imported, 1 when some line was bad or the store failed (then
        nothing is imported), 2 on bad usage.
        """

    /// A line that could not be imported.
    struct BadLine: Error {
        let line: Int
        let message: String
    }

    static func run(_ flags: Flags) throws -> Int32 {
        let path = try TokensCommand.store(flags)
        let file = try TokensCommand.single(flags, "FILE")
        let text = try read(file)
        let now = TokenTime.now
        var registrations: [TokenStore.Registration] = []
        var feedback: [Feedback.Entry] = []
        var bad = 0
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            do throws(BadLine) {
                switch try parse(line, number: number, now: now) {
                case .registration(let registration)?: registrations.append(registration)
                case .feedback(let entry)?: feedback.append(entry)
                case nil: break
                }
            } catch {
                bad += 1
                LineWriter.stderr("apn tokens import: \(file == "-" ? "stdin" : file):\(error.line): \(error.message)")
            }
        }
        guard let store = TokensCommand.open(path) else { return 1 }
        do throws(StoreError) {
            let (imported, applied) = try store.importRecords(registrations, feedback: feedback, readAt: now)
            var fields: [(String, JSONValue)] = [("imported", .integer(imported))]
            if !feedback.isEmpty {
                fields += [
                    ("feedback", .integer(applied.read)), ("deactivated", .integer(applied.deactivated)),
                    ("kept", .integer(applied.kept)), ("unknown", .integer(applied.unknown)),
                    ("duplicates", .integer(applied.duplicates)),
                ]
            }
            fields.append(("bad_lines", .integer(bad)))
            LineWriter.stdout(.object(fields))
            return bad == 0 ? 0 : 1
        } catch {
            TokensCommand.fail(error)
            return 1
        }
    }

    /// What one line holds.
    enum Record {
        case registration(TokenStore.Registration)
        case feedback(Feedback.Entry)
    }

    /// One line: nil for a blank line or a comment.
    static func parse(_ line: Substring, number: Int, now: Int64) throws(BadLine) -> Record? {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let first = fields.first, !first.hasPrefix("#") else { return nil }
        if first.hasPrefix("{") {
            do throws(UsageError) {
                return .feedback(try FeedbackLine.entry(line))
            } catch {
                throw BadLine(line: number, message: error.message)
            }
        }
        guard fields.count <= 3 else {
            throw BadLine(line: number, message: "expected TOKEN [TIME [TOPIC]], got \(fields.count) fields")
        }
        let device: Device
        do throws(UsageError) {
            device = try TokensCommand.device(String(first), registering: true)
        } catch {
            throw BadLine(line: number, message: error.message)
        }
        var time = now
        if fields.count > 1, fields[1] != "-" {
            do throws(UsageError) {
                time = try TokenTime.parse(String(fields[1]), what: "TIME")
            } catch {
                throw BadLine(line: number, message: error.message)
            }
        }
        let topic = fields.count > 2 ? String(fields[2]) : nil
        return .registration(TokenStore.Registration(device: device, topic: topic, at: time))
    }

    /// The whole file, or standard input for `-`.
    private static func read(_ path: String) throws(UsageError) -> String {
        if path == "-" {
            return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw UsageError("\(path) \(reason)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
