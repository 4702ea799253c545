import APNSupport
import Foundation
import Synchronization

/// What an admin endpoint answers.
package struct AdminResponse: Sendable {
    /// The HTTP status.
    package var status: Int
    /// Its `Content-Type`.
    package var contentType = "text/plain; charset=utf-8"
    /// The body.
    package var body: String

    /// An answer with `status`, of `contentType`, saying `body`.
    package init(status: Int, contentType: String = "text/plain; charset=utf-8", body: String) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// A plain-text answer.
    package static func text(_ status: Int, _ body: String) -> AdminResponse { AdminResponse(status: status, body: body) }
}

/// The admin listener of a long-running command (`--admin HOST:PORT`, #42): plain HTTP/1.1
/// on its own thread, one connection at a time, each bounded — 8 KiB of request line and
/// headers, 5 s to send them and read the answer — then closed (`Connection: close`), so a
/// slow or hostile scraper costs at most one connection's wait. Nothing here knows the
/// endpoints: `respond` maps a request to its answer (``AdminEndpoints``).
package final class AdminServer: Sendable {
    /// The address bound.
    package let host: String
    package let port: UInt16
    private let listener: Int32
    private let wake: (read: Int32, write: Int32)
    private let respond: @Sendable (AdminRequest) -> AdminResponse
    private let done = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)

    /// How long one connection may take.
    package static let connectionLimit: Duration = .seconds(5)

    /// Binds `host:port` (an IPv4 address; `localhost` is 127.0.0.1; port 0: the system
    /// chooses).
    package init(host: String, port: UInt16, respond: @escaping @Sendable (AdminRequest) -> AdminResponse) throws {
        self.respond = respond
        self.host = host
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
            throw AdminError("--admin: \"\(host)\" is not an IPv4 address")
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw AdminError("--admin: no socket (errno \(errno))") }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let code = errno
            close(descriptor)
            throw AdminError("--admin: cannot listen on \(host):\(port) (\(String(cString: strerror(code))))")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(descriptor)
            throw AdminError("--admin: no pipe (errno \(errno))")
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wake = (pipeEnds[0], pipeEnds[1])
        listener = descriptor
    }

    /// Starts the listener's thread.
    package func start() {
        _ = ThreadStarter.system.startOrDispatch("apn-admin") { [self] in
            serve()
            done.signal()
        }
    }

    /// Stops the thread (a connection being answered is cut short) and closes the socket.
    package func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        done.wait()
        close(listener)
        close(wake.read)
        close(wake.write)
    }

    private func serve() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, -1) >= 0 else { continue }
            if fds[1].revents != 0 { return }
            guard fds[0].revents != 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            answer(connection)
            close(connection)
        }
    }

    /// Reads one request within the limits and writes its answer.
    private func answer(_ connection: Int32) {
        let deadline = ContinuousClock.now + Self.connectionLimit
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2_048)
        var parsed = AdminRequest.Parsed.incomplete
        while case .incomplete = parsed {
            let left = deadline - .now
            guard left > .zero else { return }
            var fds = [pollfd(fd: connection, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 2, Int32(max(1, left.wholeMilliseconds))) > 0, fds[1].revents == 0 else { return }
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received += buffer[..<count]
            parsed = AdminRequest.parse(received)
        }
        let response: AdminResponse
        switch parsed {
        case .request(let request):
            response = request.method == "GET" || request.method == "HEAD"
                ? respond(request) : .text(405, "only GET\n")
        case .malformed(let why): response = .text(400, why + "\n")
        case .tooLarge: response = .text(431, "request too large\n")
        case .incomplete: return
        }
        let body = Array(response.body.utf8)
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        head += "Content-Type: \(response.contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var bytes = Array(head.utf8)
        if case .request(let request) = parsed, request.method == "HEAD" {} else { bytes += body }
        var offset = 0
        while offset < bytes.count, ContinuousClock.now < deadline {
            let written = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            offset += written
        }
    }

    package static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// A failure to start the admin listener, said in one line.
package struct AdminError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

extension AdminServer {
    /// Binds `--admin`'s address (``AdminFlag``) answering `routes` and starts the listener;
    /// nil without the flag. The commands that take `--admin` after the bridge start theirs
    /// here, so each binds, answers and names its address the same way.
    package static func start(at address: (host: String, port: UInt16)?, routes: AdminRoutes) throws -> AdminServer? {
        guard let address else { return nil }
        let server = try AdminServer(host: address.host, port: address.port) { routes.respond($0) }
        server.start()
        return server
    }

    /// `HOST:PORT` as bound (the port the system chose for 0), as start lines give it.
    package var address: String { "\(host):\(port)" }
}
