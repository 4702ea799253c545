internal import Glibc

/// One resolved socket address (a copy of a `getaddrinfo` result).
struct ResolvedAddress {
    let family: Int32
    let storage: [UInt8]

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    func withSockAddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        storage.withUnsafeBytes { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count)) }
    }
}

/// `getaddrinfo` for TCP, IPv4 and IPv6, in the resolver's preferred order.
enum AddressResolver {
    static func resolve(host: String, port: UInt16, passive: Bool = false) throws(TLSError) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE | AI_NUMERICSERV : AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        // A passive lookup is for a listener: its failure is the listen address's, not a
        // connection's.
        let kind: TLSError.Kind = passive ? .listen : .connect
        let what = passive ? "the listen address \(host)" : host
        guard status == 0 else {
            let reason = String(cString: gai_strerror(status))
            throw TLSError(kind, "resolving \(what): \(reason)", errno: status == EAI_SYSTEM ? currentErrno : nil)
        }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedAddress] = []
        var cursor = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                let bytes = UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen))
                addresses.append(ResolvedAddress(family: entry.pointee.ai_family, storage: Array(bytes)))
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw TLSError(kind, "resolving \(what): no addresses") }
        return addresses
    }

    /// Whether `text` is an IPv4 or IPv6 literal (certificate checks use the IP SAN then).
    static func isIPAddress(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }
}
