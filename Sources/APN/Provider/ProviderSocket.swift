import APNHTTP2
import APNTLS
import APNWire

/// The I/O half of one provider connection: the TLS socket, the bytes not yet written and
/// the read buffer. What the bytes mean is the ``ProviderPool``'s (its
/// ``ProviderPoolConnection`` of the same `number`). Owned by the provider's I/O thread,
/// which alone touches it.
final class ProviderSocket {
    let number: Int
    let connection: TLSConnection

    /// The session's frames not yet taken by the socket (the pool writes them straight
    /// in: ``ProviderPool/appendOutput(of:to:)``).
    private var output = WireBuffer(capacity: 80 * 1024)
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(number: Int, connection: TLSConnection) {
        self.number = number
        self.connection = connection
    }

    /// Bytes the socket would not take yet (it would block): poll for writability.
    var hasRefusedBytes: Bool { !output.isEmpty }

    /// What a flush did.
    enum FlushResult {
        /// Wrote something (`progressed`) and the socket refused the rest (`blocked`), or
        /// wrote everything there was.
        case flushed(progressed: Bool, blocked: Bool)
        /// The socket failed or was closed.
        case failed(ProviderError)
    }

    /// Writes what `produce` gives (the pool's session output) until the socket would block
    /// or nothing is left.
    func flush(_ produce: (inout WireBuffer) -> Int) -> FlushResult {
        var progressed = false
        while true {
            if output.isEmpty, produce(&output) == 0 { return .flushed(progressed: progressed, blocked: false) }
            let step = output.withUnsafeReadableBytes { connection.write($0) }
            switch step {
            case .done(let count):
                output.consume(count)
                progressed = true
            case .wantWrite, .wantRead: return .flushed(progressed: progressed, blocked: true)
            case .closed: return .failed(.lost("the server closed the connection"))
            case .failed(let error): return .failed(.lost("the connection failed writing: \(error)"))
            }
        }
    }

    /// Reads at most this many bytes a turn, so a flooding server cannot hold the thread
    /// (the rest is read next turn).
    static let readBudget = 1 << 20

    /// How a read turn ended.
    enum ReadEnd {
        /// Nothing more to read now (or the budget is spent).
        case drained
        /// The peer closed cleanly.
        case closed
        case failed(ProviderError)
    }

    /// Reads what has arrived (up to ``readBudget``), handing each chunk to `deliver`, which
    /// returns false to stop (the pool gave the connection up).
    func read(_ deliver: (UnsafeRawBufferPointer) -> Bool) -> ReadEnd {
        var budget = Self.readBudget
        while budget > 0 {
            let step = readBuffer.withUnsafeMutableBytes { connection.read(into: $0) }
            switch step {
            case .done(let count):
                budget -= count
                let goesOn = readBuffer.withUnsafeBytes { bytes in
                    deliver(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                }
                if !goesOn { return .drained }
            case .wantRead, .wantWrite:
                return .drained
            case .closed:
                return .closed
            case .failed(let error):
                return .failed(.lost("the connection failed reading: \(error)"))
            }
        }
        return .drained
    }

    /// Writes `lastBytes` if the socket takes them at once, then closes it; nil: closes at
    /// once (the socket failed).
    func close(lastBytes: [UInt8]?) {
        guard let lastBytes else {
            connection.close()
            return
        }
        if !output.isEmpty {
            // Frames queued earlier go first; a socket that would not take them gets none.
            _ = flush { _ in 0 }
        }
        if !lastBytes.isEmpty && output.isEmpty {
            output.write(lastBytes)
            _ = flush { _ in 0 }
        }
        connection.close()
    }
}
