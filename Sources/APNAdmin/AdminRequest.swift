/// One HTTP/1.1 request to an admin listener (`--admin`), parsed from the bytes received so
/// far: a pure decoder, fed in any chunks, with fixed bounds. Only what the admin endpoints
/// need: the method and the path of the request line, and the end of the header block (no
/// body is read: every endpoint is a GET).
package struct AdminRequest: Equatable, Sendable {
    package let method: String
    package let path: String

    /// A request for `path` by `method`.
    package init(method: String, path: String) {
        self.method = method
        self.path = path
    }

    /// The most bytes a request line and headers may take.
    package static let sizeLimit = 8 << 10

    /// What the bytes so far make.
    package enum Parsed: Equatable, Sendable {
        /// A whole request (line and headers); nothing after it is looked at.
        case request(AdminRequest)
        /// Not whole yet: read more.
        case incomplete
        /// Not a request this listener answers: 400 with this reason.
        case malformed(String)
        /// Over ``sizeLimit`` before the headers ended: 431.
        case tooLarge
    }

    /// Parses `bytes`, everything received on the connection so far.
    package static func parse(_ bytes: [UInt8]) -> Parsed {
        guard let end = headerEnd(bytes) else {
            return bytes.count > sizeLimit ? .tooLarge : .incomplete
        }
        guard end <= sizeLimit else { return .tooLarge }
        guard let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\r")), lineEnd < end else {
            return .malformed("no request line")
        }
        let line = bytes[..<lineEnd]
        guard line.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return .malformed("the request line is not ASCII") }
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[1].first == UInt8(ascii: "/") else {
            return .malformed("the request line is not METHOD /PATH HTTP/1.x")
        }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return .malformed("not HTTP/1.0 or 1.1") }
        var path = String(decoding: parts[1], as: UTF8.self)
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        return .request(AdminRequest(method: String(decoding: parts[0], as: UTF8.self), path: path))
    }

    /// The index just past the blank line ending the headers (`\r\n\r\n`), if it came.
    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }
}
