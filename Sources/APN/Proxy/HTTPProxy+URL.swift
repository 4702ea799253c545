import APNWire

extension HTTPProxy {
    /// A proxy URL that could not be read, and why.
    public struct URLError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong with the URL, naming it with its password hidden.
        public let message: String

        /// The message.
        public var description: String { message }
    }

    /// Reads `http://[user[:password]@]host:port` (the scheme may be left out, as in most
    /// `https_proxy` variables; a trailing `/` is allowed). The user and password are
    /// percent-decoded; an IPv6 host is written in brackets. The port is required: proxies
    /// listen on ports of their own (3128, 8080, 8888), none of them a default.
    ///
    /// - Throws: ``URLError`` for another scheme (`https://` proxies are not supported), a
    ///   path, query or fragment, a missing or invalid host or port, or a bad
    ///   percent-escape.
    public init(url text: String) throws(URLError) {
        self = try HTTPProxyURL.parse(text)
    }

    /// `url` with the password of its `user:password@` replaced by `***`, whether or not it
    /// reads as a proxy URL: a URL fit to show (a configuration printed, a log line).
    public static func redactingPassword(in url: String) -> String {
        HTTPProxyURL.redacted(url)
    }
}

/// The proxy URL's grammar, pure: `HTTPProxy(url:)` and the redaction of a URL shown.
enum HTTPProxyURL {
    static func parse(_ given: String) throws(HTTPProxy.URLError) -> HTTPProxy {
        let text = given.trimmingWhitespace()
        func fail(_ why: String) -> HTTPProxy.URLError {
            HTTPProxy.URLError(message: "proxy URL \"\(redacted(text))\": \(why)")
        }
        var rest = Substring(text)
        if let separator = rest.firstRange(of: "://") {
            let scheme = rest[..<separator.lowerBound].lowercased()
            guard scheme == "http" else {
                throw fail(
                    scheme == "https"
                        ? "https:// proxies (TLS to the proxy) are not supported; give http://HOST:PORT"
                        : "the scheme must be http://, not \(scheme)://")
            }
            rest = rest[separator.upperBound...]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains(where: { "/?#".contains($0) }) else {
            throw fail("a proxy URL has no path, query or fragment: http://[USER:PASSWORD@]HOST:PORT")
        }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user = userInfo.firstIndex(of: ":").map { userInfo[..<$0] } ?? userInfo
            guard let decodedUser = percentDecoded(user), !decodedUser.isEmpty else {
                throw fail("the user before @ is empty or has a bad %-escape")
            }
            username = decodedUser
            if let colon = userInfo.firstIndex(of: ":") {
                guard let decoded = percentDecoded(userInfo[userInfo.index(after: colon)...]) else {
                    throw fail("the password has a bad %-escape")
                }
                password = decoded
            }
        }
        let host: Substring
        let portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw fail("an IPv6 address needs its closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw fail("expected :PORT after ]") }
            portText = after.isEmpty ? nil : after.dropFirst()
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw fail("\"\(host)\" is not an IPv6 address")
            }
        } else {
            let colon = rest.lastIndex(of: ":")
            host = colon.map { rest[..<$0] } ?? rest
            portText = colon.map { rest[rest.index(after: $0)...] }
            guard !host.isEmpty else { throw fail("no host: http://[USER:PASSWORD@]HOST:PORT") }
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
                throw fail("\"\(host)\" is not a host name or address")
            }
        }
        guard let portText else { throw fail("no port: http://[USER:PASSWORD@]HOST:PORT") }
        guard portText.allSatisfy(\.isASCII), let port = UInt16(portText), port > 0 else {
            throw fail("\"\(portText)\" is not a port (1-65535)")
        }
        return HTTPProxy(host: String(host), port: port, username: username, password: password)
    }

    /// `text` with the password of a `user:password@` replaced by `***`: a URL that may
    /// carry a secret, fit to show (a configuration printed, an error message).
    static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let start = text.firstRange(of: "://").map(\.upperBound) ?? text.startIndex
        guard start <= at, let colon = text[start..<at].firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }

    /// `text` with every byte but unreserved ones percent-encoded: a user name in a URL.
    static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80, Character(scalar).isLetter || Character(scalar).isNumber || "-._~".unicodeScalars.contains(scalar) {
                encoded.unicodeScalars.append(scalar)
            } else {
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return encoded
    }

    /// `text` with its `%XX` escapes decoded as UTF-8; nil for a bad escape or bytes
    /// that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(APNWire.hexValue), let low = iterator.next().flatMap(APNWire.hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line ends.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
