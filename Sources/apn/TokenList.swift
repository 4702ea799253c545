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
        // Read a chunk at a time, a line never split: the file is never held whole (a
        // million tokens are 66 MB of text, twice that as Data and then an array).
        let source = file == "-" ? "stdin" : file
        var lineNumber = 0
        var pending: [UInt8] = []
        try Self.read(file) { chunk in
            var start = 0
            while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
                lineNumber += 1
                if pending.isEmpty {
                    addLine(chunk[start..<newline], source: source, line: lineNumber)
                } else {
                    pending.append(contentsOf: chunk[start..<newline])
                    addLine(pending[...], source: source, line: lineNumber)
                    pending.removeAll(keepingCapacity: true)
                }
                start = newline + 1
            }
            pending.append(contentsOf: chunk[start...])
        }
        if !pending.isEmpty {
            lineNumber += 1
            addLine(pending[...], source: source, line: lineNumber)
        }
    }

    /// One line of the file: trimmed; skipped when blank or a comment.
    private mutating func addLine(_ text: ArraySlice<UInt8>, source: String, line number: Int) {
        var line = text
        while let first = line.first, first == 0x20 || first == 0x09 { line = line.dropFirst() }
        while let last = line.last, last == 0x20 || last == 0x09 || last == 0x0D { line = line.dropLast() }
        guard !line.isEmpty && line.first != UInt8(ascii: "#") else { return }
        add(line, source: source, line: number)
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

    /// The bytes of file `path` (standard input for `-`), handed to `body` a chunk at a time.
    private static func read(_ path: String, _ body: (ArraySlice<UInt8>) -> Void) throws(UsageError) {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw UsageError("--tokens-file: \(path) \(reason)")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw UsageError("--tokens-file: \(path == "-" ? "standard input" : path) cannot be read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return }
            body(chunk[0..<count])
        }
    }

    /// How much of the tokens file is read at a time.
    private static let chunkSize = 1 << 20
}
