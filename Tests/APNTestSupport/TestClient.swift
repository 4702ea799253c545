import APNSupport
package import APNTLS

/// A provider-side TLS connection for tests: writes bytes whole, reads until the gateway
/// closes, with deadlines instead of sleeps.
package final class TestClient {
    package let connection: TLSConnection

    /// Wraps a connected client whose handshake is done.
    package init(_ connection: TLSConnection) {
        self.connection = connection
    }

    /// How the gateway ended the connection, as the client saw it.
    package enum End: Equatable, Sendable {
        /// It closed, with close_notify (`clean`) or without.
        case closed(clean: Bool)
        /// The connection failed (a reset is `.connectionReset`).
        case failed(TLSError.Kind)
        /// Still open at the deadline.
        case timedOut
    }

    /// What the client read before the end.
    package struct Transcript {
        /// Everything read, in order.
        package var bytes: [UInt8] = []
        /// The size of each successful read (one TLS record at most each).
        package var reads: [Int] = []
        /// How it ended; `.timedOut` when it had not by the deadline.
        package var end: End = .timedOut
    }

    /// Writes every byte (one TLS record per write call up to 16 KiB).
    package func send(_ bytes: [UInt8], timeout: Duration = .seconds(10)) throws {
        try connection.writeAll(bytes, deadline: .now + timeout)
    }

    /// Writes `bytes` without waiting for the socket, unless `patience` is given: then a
    /// write that would block may wait that long for the socket to take more. Returns how
    /// many bytes were written before a write would block (all of them if none did); the
    /// rest may be finished with ``send(_:timeout:)``, which repeats a partly written record.
    package func writeWithoutBlocking(_ bytes: [UInt8], patience: Duration = .zero) throws -> Int {
        try bytes.withUnsafeBytes { bytes in
            try connection.write(bytes) { readiness throws(TLSError) in
                try connection.waitUntil(readiness, deadline: .now + patience)
            }
        }
    }

    /// Sends each chunk as its own write (so its own TLS record).
    package func send(chunks: [[UInt8]]) throws {
        for chunk in chunks { try send(chunk) }
    }

    /// How the gateway ended the connection if it has (reading without waiting, and
    /// expecting nothing but the end); `nil` while it is open.
    package func endIfAny() throws -> End? {
        var buffer = [UInt8](repeating: 0, count: 64)
        switch buffer.withUnsafeMutableBytes({ connection.read(into: $0) }) {
        case .done(let count): throw TLSError(.read, "the gateway sent \(count) bytes")
        case .wantRead, .wantWrite: return nil
        case .closed(let clean): return .closed(clean: clean)
        case .failed(let error): return .failed(error.kind)
        }
    }

    /// Reads until the gateway closes or fails the connection, or `timeout` passes.
    package func readToEnd(timeout: Duration = .seconds(10)) throws -> Transcript {
        let deadline = ContinuousClock.now + timeout
        var transcript = Transcript()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            switch buffer.withUnsafeMutableBytes({ connection.read(into: $0, deadline: deadline) }) {
            case .bytes(let count):
                transcript.bytes += buffer[..<count]
                transcript.reads.append(count)
            case .timedOut:
                return transcript
            case .closed(let clean):
                transcript.end = .closed(clean: clean)
                return transcript
            case .failed(let error):
                transcript.end = .failed(error.kind)
                return transcript
            }
        }
    }
}
