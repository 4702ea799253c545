import APN
import Foundation

/// Device tokens from `--token` values and a `--tokens-file` (one per line, `-` for
/// standard input; blank lines and lines starting with `#` skipped). A line that is not a
/// token is kept as a ``BadLine`` and does not stop the others.
struct TokenList {
    /// A line (or `--token` value) that is not a device token.
    struct BadLine: Sendable {
        /// Where it came from: `--token` or `FILE:LINE`.
        let source: String
        /// The 1-based line number in the file (0 for `--token`).
        let line: Int
        /// The text, trimmed.
        let text: String
        /// Why it is not a token.
        let error: APNError

        /// The JSON line `apn send` prints for it.
        var report: JSONValue {
            .object([
                ("line", .integer(line)), ("source", .string(source)), ("token", .string(text)),
                ("outcome", .string("invalid_token")), ("error", .string(error.message)),
            ])
        }
    }

    private(set) var devices: [Device] = []
    private(set) var bad: [BadLine] = []
    /// Whether the tokens are for the binary interface, which carries 32-byte tokens only;
    /// otherwise any of ``Device/tokenLengths`` (Apple's device tokens are of variable length).
    private let binary: Bool

    /// The recipients `apn send` was given: `--token` (repeatable) and `--tokens-file`.
    ///
    /// - Throws: ``UsageError`` when there are none, or the file cannot be read.
    init(recipientsOf flags: Flags, binary: Bool) throws(UsageError) {
        let tokens = flags.all("--token")
        let file = flags.value("--tokens-file")
        guard !tokens.isEmpty || file != nil else {
            throw UsageError("no recipients: give --token HEX or --tokens-file FILE")
        }
        try self.init(tokens: tokens, file: file, binary: binary)
        if devices.isEmpty && bad.isEmpty, let file {
            throw UsageError("no recipients: \(file == "-" ? "standard input" : file) holds no token (only blank lines and comments)")
        }
    }

    /// Reads `tokens` (from `--token`) and then `file`, if given.
    init(tokens: [String], file: String?, binary: Bool) throws(UsageError) {
        self.binary = binary
        for token in tokens {
            add(Array(token.utf8)[...], source: "--token", line: 0)
        }
        guard let file else { return }
        let bytes = try Self.read(file)
        devices.reserveCapacity(devices.count + bytes.count / 65)
        var lineNumber = 0
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            lineNumber += 1
            var line = bytes[start..<end]
            while let first = line.first, first == 0x20 || first == 0x09 { line = line.dropFirst() }
            while let last = line.last, last == 0x20 || last == 0x09 || last == 0x0D { line = line.dropLast() }
            if !line.isEmpty && line.first != UInt8(ascii: "#") {
                add(line, source: file == "-" ? "stdin" : file, line: lineNumber)
            }
            start = end < bytes.endIndex ? end + 1 : end
        }
    }

    private mutating func add(_ text: ArraySlice<UInt8>, source: String, line: Int) {
        if let token = Self.decodeHex(text), let device = try? Device(token: token),
            !binary || token.count == Device.binaryTokenLength
        {
            devices.append(device)
            return
        }
        // The slow path, for the library's own message (odd length, not hex, too long, or
        // not 32 bytes for the binary interface).
        let string = String(decoding: text, as: UTF8.self)
        do throws(APNError) {
            let device = try Device(string)
            if binary && device.token.count != Device.binaryTokenLength {
                throw Device.binaryRefusal(length: device.token.count)
            }
            devices.append(device)
        } catch {
            bad.append(BadLine(source: source, line: line, text: string, error: error))
        }
    }

    /// Plain hex (no spaces or `<>`), or nil.
    private static func decodeHex(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0, !text.isEmpty else { return nil }
        var bytes = [UInt8](repeating: 0, count: text.count / 2)
        var index = text.startIndex
        for position in bytes.indices {
            guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return nil }
            bytes[position] = high << 4 | low
            index += 2
        }
        return bytes
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The whole file, or standard input for `-`.
    private static func read(_ path: String) throws(UsageError) -> [UInt8] {
        if path == "-" {
            return Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw UsageError("--tokens-file: \(path) \(reason)")
        }
        return Array(data)
    }
}
