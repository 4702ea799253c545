import APN
import APNSupport
import APNWire
import Foundation
import Synchronization

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
            Array(token.utf8).withUnsafeBufferPointer { add($0, source: "--token", line: 0) }
        }
        guard let file else { return }
        let source = file == "-" ? "stdin" : file
        if let halves = try Self.halves(of: file) {
            // A large file is parsed in two halves at once, the second on a thread of its
            // own: decoding a million tokens took as long as sending them, before the first
            // was sent. The second half's lines are numbered after the first's.
            let second = Lock<Result<TokenList, UsageError>?>(nil)
            let done = DispatchSemaphore(value: 0)
            let binary = binary
            CommandThread.start("apn-tokens") {
                let parsed = Result { () throws(UsageError) -> TokenList in
                    var part = TokenList(binary: binary)
                    try part.parse(file, range: halves.second, source: source)
                    return part
                }
                second.withLock { $0 = parsed }
                done.signal()
            }
            let lines = try parse(file, range: halves.first, source: source)
            done.wait()
            // Set before the signal: never nil here, but never a silent half either.
            guard let result = second.withLock({ $0 }) else {
                throw UsageError("--tokens-file: \(file)'s second half was not read")
            }
            let part = try result.get()
            devices += part.devices
            bad += part.bad.map { BadLine(source: $0.source, line: $0.line + lines, text: $0.text, error: $0.error) }
            return
        }
        try parse(file, range: nil, source: source)
    }

    private init(binary: Bool) {
        self.binary = binary
    }

    /// The recipients `apn send` was given, as ``init(recipientsOf:binary:)`` reads them,
    /// but a large tokens file (a regular file of ``parallelSize`` or more) read on a thread
    /// of its own while the send begins (``RecipientSupply``). Returns once its first line
    /// that is not blank or a comment was read, so that a file of nothing else is still bad
    /// usage, told before anything is sent.
    ///
    /// - Throws: ``UsageError`` when there are no recipients, or the file cannot be opened.
    static func supply(recipientsOf flags: Flags, binary: Bool) throws(UsageError) -> RecipientSupply {
        guard let file = flags.value("--tokens-file"), try isLarge(file) else {
            return RecipientSupply(complete: try TokenList(recipientsOf: flags, binary: binary))
        }
        let given = try TokenList(tokens: flags.all("--token"), file: nil, binary: binary)
        let supply = RecipientSupply()
        supply.add(given.devices, bad: given.bad)
        CommandThread.start("apn-tokens") {
            var reader = TokenList(binary: binary)
            do throws(UsageError) {
                // Handed over a chunk of the file at a time (about 15,000 tokens).
                try reader.parse(file, range: nil, source: file) { reader in
                    supply.add(reader.devices, bad: reader.bad)
                    reader.devices.removeAll(keepingCapacity: true)
                    reader.bad.removeAll()
                }
                supply.add(reader.devices, bad: reader.bad)
                supply.finish()
            } catch {
                supply.add(reader.devices, bad: reader.bad)
                supply.finish(failure: error)
            }
        }
        supply.waitForAnything()
        if let failure = supply.failureBeforeAnything { throw failure }
        if supply.isEmptyAndFinished {
            throw UsageError("no recipients: \(file) holds no token (only blank lines and comments)")
        }
        return supply
    }

    /// Whether `path` is a regular file of ``parallelSize`` or more (it cannot be opened: thrown).
    private static func isLarge(_ path: String) throws(UsageError) -> Bool {
        guard path != "-" else { return false }
        let descriptor = try open(path)
        defer { close(descriptor) }
        return largeFileSize(descriptor) != nil
    }

    /// The size of the regular file open as `descriptor` when it is ``parallelSize`` or
    /// more; nil for anything else (a pipe, a small file).
    private static func largeFileSize(_ descriptor: Int32) -> Int? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) >= parallelSize else {
            return nil
        }
        return Int(status.st_size)
    }

    /// Adds the tokens of `file`'s bytes in `range` (all of it when nil; a range starts
    /// after a newline or at 0), numbering lines from 1; returns how many lines it held.
    @discardableResult
    private mutating func parse(
        _ file: String, range: Range<Int>?, source: String, afterChunk: ((inout TokenList) -> Void)? = nil
    ) throws(UsageError) -> Int {
        // Read a chunk at a time, a line never split: the file is never held whole (a
        // million tokens are 66 MB of text, twice that as Data and then an array). Lines
        // are found with `memchr` and decoded eight digits at a time, on the chunk's own bytes:
        // slicing and decoding through `ArraySlice` cost more than sending the notification.
        var lineNumber = 0
        var pending: [UInt8] = []
        try Self.read(file, range: range) { chunk in
            chunk.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                var start = 0
                while start < buffer.count, let found = memchr(base + start, 0x0A, buffer.count - start) {
                    let newline = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base
                    lineNumber += 1
                    if pending.isEmpty {
                        addLine(UnsafeBufferPointer(rebasing: buffer[start..<newline]), source: source, line: lineNumber)
                    } else {
                        pending.append(contentsOf: buffer[start..<newline])
                        pending.withUnsafeBufferPointer { addLine($0, source: source, line: lineNumber) }
                        pending.removeAll(keepingCapacity: true)
                    }
                    start = newline + 1
                }
                pending.append(contentsOf: buffer[start...])
            }
            afterChunk?(&self)
        }
        if !pending.isEmpty {
            lineNumber += 1
            pending.withUnsafeBufferPointer { addLine($0, source: source, line: lineNumber) }
        }
        return lineNumber
    }

    /// One line of the file: trimmed; skipped when blank or a comment.
    private mutating func addLine(_ text: UnsafeBufferPointer<UInt8>, source: String, line number: Int) {
        var first = 0
        var end = text.count
        while first < end, text[first] == 0x20 || text[first] == 0x09 { first += 1 }
        while end > first, text[end - 1] == 0x20 || text[end - 1] == 0x09 || text[end - 1] == 0x0D { end -= 1 }
        guard first < end, text[first] != UInt8(ascii: "#") else { return }
        add(UnsafeBufferPointer(rebasing: text[first..<end]), source: source, line: number)
    }

    private mutating func add(_ text: UnsafeBufferPointer<UInt8>, source: String, line: Int) {
        if let token = bytes(fromHexDigits: text), let device = try? Device(token: token),
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

    /// The bytes of file `path` (standard input for `-`) in `range` (all of it when nil),
    /// handed to `body` a chunk at a time.
    private static func read(_ path: String, range: Range<Int>? = nil, _ body: (ArraySlice<UInt8>) -> Void) throws(UsageError) {
        let descriptor = try open(path)
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var offset = range?.lowerBound ?? 0
        while true {
            let wanted = range.map { min(chunkSize, $0.upperBound - offset) } ?? chunkSize
            if wanted == 0 { return }
            let count = chunk.withUnsafeMutableBytes { raw in
                range == nil
                    ? Foundation.read(descriptor, raw.baseAddress, wanted) : pread(descriptor, raw.baseAddress, wanted, off_t(offset))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw UsageError("--tokens-file: \(path == "-" ? "standard input" : path) cannot be read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return }
            offset += count
            body(chunk[0..<count])
        }
    }

    private static func open(_ path: String) throws(UsageError) -> Int32 {
        let descriptor = path == "-" ? STDIN_FILENO : Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw UsageError("--tokens-file: \(path) \(reason)")
        }
        return descriptor
    }

    /// A regular file of at least ``parallelSize`` split in two at the first newline past
    /// its middle; nil for anything else (standard input, a pipe, a small file).
    static func halves(of path: String) throws(UsageError) -> (first: Range<Int>, second: Range<Int>)? {
        guard path != "-" else { return nil }
        let descriptor = try open(path)
        defer { close(descriptor) }
        guard let size = largeFileSize(descriptor) else { return nil }
        var window = [UInt8](repeating: 0, count: 4_096)
        var offset = size / 2
        while offset < size {
            let count = window.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            guard count > 0 else { return nil }
            if let newline = window[0..<count].firstIndex(of: 0x0A) {
                let middle = offset + newline + 1
                return middle < size ? (0..<middle, middle..<size) : nil
            }
            offset += count
        }
        return nil
    }

    /// How large a tokens file must be to be parsed in two halves at once (about 60,000 tokens).
    private static let parallelSize = 4 << 20

    /// How much of the tokens file is read at a time.
    private static let chunkSize = 1 << 20
}
