import APN
import APNFeedbackStore
import Foundation

/// `apn tokens import FILE --store FILE`: bulk registration in one transaction.
enum TokensImport {
    static let usage = """
        usage: apn tokens import FILE --store FILE
        Registers the tokens of FILE (`-`: standard input) in one transaction. One token per line:
            TOKEN [TIME [TOPIC]]
        fields separated by spaces or tabs; TOKEN in hex; TIME in UNIX seconds or ISO-8601, or `-`
        (or absent) for now; TOPIC optional. Blank lines and lines starting with # are skipped.
        A bad line is reported on standard error with its line number and skipped; the others are
        imported. Prints {"imported":N,"bad_lines":M}. Exits 0 when every line was imported, 1 when
        some line was bad or the store failed (then nothing is imported), 2 on bad usage.
        """

    /// A line that could not be imported.
    struct BadLine: Error {
        let line: Int
        let message: String
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let (flags, path) = try TokensCommand.flags(arguments, usage: usage) else { return 0 }
        let file = try TokensCommand.single(flags, "FILE")
        let text = try read(file)
        let now = TokenTime.now
        var registrations: [TokenStore.Registration] = []
        var bad = 0
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            do throws(BadLine) {
                if let registration = try parse(line, number: number, now: now) { registrations.append(registration) }
            } catch {
                bad += 1
                LineWriter.stderr("apn tokens import: \(file == "-" ? "stdin" : file):\(error.line): \(error.message)")
            }
        }
        guard let store = TokensCommand.open(path) else { return 1 }
        do throws(StoreError) {
            let imported = try store.register(registrations)
            LineWriter.stdout(.object([("imported", .integer(imported)), ("bad_lines", .integer(bad))]))
            return bad == 0 ? 0 : 1
        } catch {
            TokensCommand.fail(error)
            return 1
        }
    }

    /// One line: nil for a blank line or a comment.
    static func parse(_ line: Substring, number: Int, now: Int64) throws(BadLine) -> TokenStore.Registration? {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let first = fields.first, !first.hasPrefix("#") else { return nil }
        guard fields.count <= 3 else {
            throw BadLine(line: number, message: "expected TOKEN [TIME [TOPIC]], got \(fields.count) fields")
        }
        let device: Device
        do throws(UsageError) {
            device = try TokensCommand.device(String(first))
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
        return TokenStore.Registration(device: device, topic: topic, at: time)
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
