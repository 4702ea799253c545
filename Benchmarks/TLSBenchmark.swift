import APNSupport
import APNTLS
import APNWire
import Dispatch
import Foundation

/// `apn-bench tls`: one mutual-TLS connection on loopback, client and server in this
/// process on two threads; the client writes 150-byte command 2 frames coalesced into
/// 16 KB writes, the server reads and counts. Prints bytes/s and frames/s.
enum TLSBenchmark {
    static let frameLength = 150
    static let writeSize = 16 * 1024

    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 1 << 30)
        let bytesPerRound = options.operations
        let (client, server, version) = try connectedPair()
        let chunk = try coalescedFrames()
        print("tls: \(version), loopback, Nagle on, reader read-ahead, \(frameLength)-byte frames in \(chunk.count)-byte writes, "
            + "\(bytesPerRound) bytes a round, \(options.rounds) rounds (+1 warm-up), client and server threads")

        let rounds = options.rounds + 1
        let roundDone = DispatchSemaphore(value: 0)
        let reader = Handoff(server)
        let failure = ReaderFailure()
        Thread.detachNewThread {
            do {
                try readRounds(reader.take(), rounds: rounds, bytesPerRound: bytesPerRound, roundDone: roundDone)
            } catch {
                failure.record(error)
                for _ in 0..<rounds { roundDone.signal() }
            }
        }
        var seconds: [Double] = []
        let clock = ContinuousClock()
        for round in 0..<rounds {
            let start = clock.now
            try writeRound(client, chunk: chunk, bytes: bytesPerRound)
            roundDone.wait()
            if let error = failure.error { throw error }
            let elapsed = clock.now - start
            if round > 0 {
                seconds.append(elapsed.inSeconds)
            }
        }
        report("bytes through TLS", operations: bytesPerRound, seconds: seconds, unit: "bytes/s")
        report("frames through TLS", operations: bytesPerRound / frameLength, seconds: seconds, unit: "frames/s")
    }

    /// A CA, a loopback server requiring a client certificate, and a connected, handshaken
    /// client.
    static func connectedPair() throws -> (client: TLSConnection, server: TLSConnection, version: String) {
        let authority = try CertificateAuthority()
        let serverCertificate = try authority.issueServerCertificate()
        let clientCertificate = try authority.issueClientCertificate(topic: "com.example.bench")
        let serverContext = try TLSServerContext(
            credentials: serverCertificate.credentials(), clientCertificateAuthorities: [authority.certificate])
        let clientContext = try TLSClientContext(
            trustedCertificates: [authority.certificate], credentials: clientCertificate.credentials())
        let listener = try TLSListener(context: serverContext)
        let client = try TLSConnection.connect(host: "127.0.0.1", port: listener.port, context: clientContext)
        let server = try listener.accept(deadline: .now + .seconds(5))
        let deadline = ContinuousClock.now + .seconds(10)
        var clientDone = false
        var serverDone = false
        while !(clientDone && serverDone) {
            if !clientDone { clientDone = try step(client.handshake(), client, deadline) }
            if !serverDone { serverDone = try step(server.handshake(), server, deadline) }
        }
        // The reader takes whatever the socket holds in one system call, not a record
        // header and then its body: measured 5–25 % more bytes/s here.
        server.setReadAhead(true)
        for connection in [client, server] {
            enlargeSocketBuffers(connection.fileDescriptor)
            // Nagle on, node-apn's default (`disableNagle: false`): with full 16 KB writes it
            // costs no latency and lets the kernel send fewer, larger segments.
            try connection.setNoDelay(false)
        }
        return (client, server, client.protocolVersion)
    }

    /// 4 MB socket buffers, so each side moves many records per wake-up.
    static func enlargeSocketBuffers(_ descriptor: Int32) {
        var size: Int32 = 4 << 20
        for option in [SO_SNDBUF, SO_RCVBUF] {
            _ = setsockopt(descriptor, SOL_SOCKET, option, &size, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// One handshake step; waits briefly when the side needs its peer.
    static func step(_ result: TLSStep, _ connection: TLSConnection, _ deadline: ContinuousClock.Instant) throws -> Bool {
        switch result {
        case .done: return true
        case .wantRead: _ = try connection.waitUntil(.readable, deadline: min(deadline, .now + .milliseconds(5)))
        case .wantWrite: _ = try connection.waitUntil(.writable, deadline: min(deadline, .now + .milliseconds(5)))
        case .closed(let clean): throw TLSError(.handshake, "peer closed during the handshake (clean: \(clean))")
        case .failed(let error): throw error
        }
        if ContinuousClock.now > deadline { throw TLSError(.timeout, "handshake") }
        return false
    }

    /// 16 KB of whole 150-byte command 2 frames (32-byte tokens, 89-byte payloads).
    static func coalescedFrames() throws -> [UInt8] {
        var buffer = WireBuffer(capacity: writeSize)
        let payload = [UInt8](repeating: 0x20, count: frameLength - 29 - 32)
        var identifier: UInt32 = 1
        while buffer.readableBytes + frameLength <= writeSize {
            let token = [UInt8](repeating: UInt8(truncatingIfNeeded: identifier), count: 32)
            buffer.writeFrameNotification(identifier: identifier, expiry: 0, priority: 10, token: token, payload: payload)
            identifier += 1
        }
        return buffer.readableBytesArray
    }

    /// Writes `bytes` bytes of the repeated chunk, waiting with `poll()` when the socket is
    /// full. Also used by `apn-bench mock`.
    static func writeRound(_ connection: TLSConnection, chunk: [UInt8], bytes: Int) throws {
        let deadline = ContinuousClock.now + .seconds(120)
        var remaining = bytes
        try chunk.withUnsafeBytes { all in
            while remaining > 0 {
                let count = min(all.count, remaining)
                try connection.writeAll(UnsafeRawBufferPointer(rebasing: all[..<count]), deadline: deadline)
                remaining -= count
            }
        }
    }

    static func readRounds(
        _ connection: TLSConnection, rounds: Int, bytesPerRound: Int, roundDone: DispatchSemaphore
    ) throws {
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var received = 0
        var signalled = 0
        let deadline = ContinuousClock.now + .seconds(600)
        while signalled < rounds {
            switch buffer.withUnsafeMutableBytes({ connection.read(into: $0, deadline: deadline) }) {
            case .bytes(let count): received += count
            case .timedOut: throw TLSError(.timeout, "reading round \(signalled + 1) of \(rounds)")
            case .closed(let clean): throw TLSError(.read, "client closed (clean: \(clean))")
            case .failed(let error): throw error
            }
            while received >= (signalled + 1) * bytesPerRound, signalled < rounds {
                signalled += 1
                roundDone.signal()
            }
        }
    }

    /// The reader thread's error, for the main thread. A lock guards it.
    final class ReaderFailure: @unchecked Sendable {
        // @unchecked Sendable: `stored` is only touched under `lock`.
        private let lock = NSLock()
        private var stored: (any Error)?
        func record(_ error: any Error) { lock.withLock { stored = error } }
        var error: (any Error)? { lock.withLock { stored } }
    }
}
