import APNSupport
import Foundation
import Synchronization

/// A JSON value with object keys kept in the order written, so output lines read as documented.
enum JSONValue {
    case string(String)
    case integer(Int)
    /// A number with `places` digits after the point (`1.234`), written as a JSON number.
    case decimal(Double, places: Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// The value as compact JSON text.
    var text: String {
        switch self {
        case .string(let string): return JSONStringEscaping.quoted(string)
        case .integer(let number): return String(number)
        case .decimal(let number, let places):
            return number.isFinite ? String(format: "%.\(places)f", number) : "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .array(let elements): return "[" + elements.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { "\(JSONStringEscaping.quoted($0.0)):\($0.1.text)" }.joined(separator: ",") + "}"
        }
    }
}

/// Writes whole lines to a file descriptor with `write(2)`: no buffering, so each line is
/// visible to readers as soon as the call returns.
enum LineWriter {
    /// Writes `line` and a newline to `descriptor`, retrying short writes.
    /// - Returns: whether everything was written.
    @discardableResult
    static func write(_ line: String, to descriptor: Int32) -> Bool {
        write(bytes: Array((line + "\n").utf8), to: descriptor)
    }

    /// Writes `bytes` to `descriptor`, retrying short writes.
    /// - Returns: whether everything was written.
    @discardableResult
    static func write(bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { write(bytes: $0, to: descriptor) }
    }

    /// Writes `bytes` to `descriptor`, retrying short writes.
    /// - Returns: whether everything was written.
    @discardableResult
    static func write(bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Writes a JSON line to standard output.
    static func stdout(_ value: JSONValue) {
        stdoutText(value.text)
    }

    /// Writes `text` and a newline to standard output. Once its reader has gone (`| head -2`:
    /// EPIPE, SIGPIPE being ignored) the rest is dropped without a word and the command ends
    /// as it would have, its exit status unchanged: a send is not cut short by a pager.
    static func stdoutText(_ text: String) {
        guard !isStandardOutputClosed else { return }
        if !write(text, to: STDOUT_FILENO) && errno == EPIPE { standardOutputClosed.store(true, ordering: .relaxed) }
    }

    /// Whether standard output's reader has gone: a long listing may stop early.
    static var isStandardOutputClosed: Bool { standardOutputClosed.load(ordering: .relaxed) }

    private static let standardOutputClosed = Atomic<Bool>(false)

    /// Writes a message line to standard error.
    static func stderr(_ message: String) {
        write(message, to: STDERR_FILENO)
    }
}
