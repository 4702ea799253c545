import APNSupport
import APNTLS
import Glibc
import SwiftOverlayShims
import APNTestSupport
import APNTestTraits
import Testing

/// A peer that sends part of a TLS record and then nothing (or one byte a second) must cost
/// the waiting side ~0 CPU: OpenSSL counts the partial record as pending (`SSL_has_pending`),
/// and the waits used to skip `poll()` for it, spinning a core until the deadline (issue #25).
///
/// Each case waits out a one-second deadline on the test's own thread and bounds that
/// thread's CPU time: a spin spends the whole second, a poll a few milliseconds. The bound
/// is on CPU seconds, never on wall time, so a loaded machine cannot fail it.
@Suite(.threadPerTest) struct PartialRecordTests {
    /// The first bytes of a handshake record (type 22, TLS 1.2, length 122) and of its
    /// ServerHello/ClientHello message: far from the whole record.
    private static let partialHandshakeRecord: [UInt8] = [0x16, 0x03, 0x03, 0x00, 0x7A, 0x02, 0x00]
    /// The header of an application-data record of 64 bytes and two bytes of its body.
    private static let partialApplicationRecord: [UInt8] = [0x17, 0x03, 0x03, 0x00, 0x40, 0xAA, 0xBB]
    /// A spin spends the whole second; a thread that polls spends well under this.
    private static let cpuBound: Duration = .milliseconds(250)
    private static let wait: Duration = .seconds(1)

    private func pair(readAhead: Bool = false) throws -> LoopbackPair {
        let fixture = try Fixture()
        let pair = try LoopbackPair(server: fixture.serverContext(), client: fixture.clientContext())
        pair.server.setReadAhead(readAhead)
        pair.client.setReadAhead(readAhead)
        return pair
    }

    @Test func aClientWaitingForAPartialServerHelloPolls() throws {
        let pair = try pair()
        guard case .wantRead = pair.client.handshake() else { Issue.record("the ClientHello should be sent"); return }
        try rawWrite(Self.partialHandshakeRecord, to: pair.server)
        let (error, cpu) = threadCPU { failure { () throws(TLSError) in try pair.client.handshake(deadline: .now + Self.wait) } }
        #expect(error?.kind == .timeout, "\(String(describing: error))")
        #expect(cpu < Self.cpuBound, "the handshake spent \(cpu) of CPU waiting one second")
    }

    @Test func aClientWaitingWithASignalForAPartialServerHelloPolls() throws {
        let pair = try pair()
        guard case .wantRead = pair.client.handshake() else { Issue.record("the ClientHello should be sent"); return }
        try rawWrite(Self.partialHandshakeRecord, to: pair.server)
        let signal = try WakeSignal()
        let deadline = ContinuousClock.now + Self.wait
        let (error, cpu) = threadCPU { failure { () throws(TLSError) in try pair.client.handshake(orSignal: signal, plan: { ContinuousClock.now < deadline ? .waitUntil(deadline) : .giveUp }) } }
        #expect(error?.kind == .timeout, "\(String(describing: error))")
        #expect(cpu < Self.cpuBound, "the handshake spent \(cpu) of CPU waiting one second")
    }

    @Test(arguments: [false, true])
    func aServerWaitingForAPartialClientHelloPolls(readAhead: Bool) throws {
        let pair = try pair(readAhead: readAhead)
        try rawWrite(Self.partialHandshakeRecord, to: pair.client)
        let (error, cpu) = threadCPU { failure { () throws(TLSError) in try pair.server.handshake(deadline: .now + Self.wait) } }
        #expect(error?.kind == .timeout, "\(String(describing: error))")
        #expect(cpu < Self.cpuBound, "the handshake spent \(cpu) of CPU waiting one second")
    }

    @Test(arguments: [false, true])
    func aReaderWaitingForTheRestOfARecordPolls(readAhead: Bool) throws {
        let pair = try pair(readAhead: readAhead)
        let outcome = pair.handshake()
        try #require(outcome.client.isDone && outcome.server.isDone)
        try rawWrite(Self.partialApplicationRecord, to: pair.server)
        var buffer = [UInt8](repeating: 0, count: 1024)
        let (result, cpu) = threadCPU {
            buffer.withUnsafeMutableBytes { pair.client.read(into: $0, deadline: .now + Self.wait) }
        }
        guard case .timedOut = result else { Issue.record("expected a time-out, got \(result)"); return }
        #expect(cpu < Self.cpuBound, "the read spent \(cpu) of CPU waiting one second")
    }

    @Test func aServerReaderWithASignalWaitingForTheRestOfARecordPolls() throws {
        let pair = try pair(readAhead: true)
        let outcome = pair.handshake()
        try #require(outcome.client.isDone && outcome.server.isDone)
        try rawWrite(Self.partialApplicationRecord, to: pair.client)
        let signal = try WakeSignal()
        let deadline = ContinuousClock.now + Self.wait
        var buffer = [UInt8](repeating: 0, count: 1024)
        let (result, cpu) = threadCPU {
            buffer.withUnsafeMutableBytes { buffer in
                pair.server.read(into: buffer) { (readiness) throws(TLSError) -> Bool in
                    try pair.server.waitUntil(readiness, deadline: deadline, orSignal: signal) == .ready
                }
            }
        }
        guard case .timedOut = result else { Issue.record("expected a time-out, got \(result)"); return }
        #expect(cpu < Self.cpuBound, "the read spent \(cpu) of CPU waiting one second")
    }

    /// Bytes OpenSSL holds still skip the poll: after a small read from a bigger record,
    /// the wait answers at once, whatever the socket holds.
    @Test func bytesOpenSSLHoldsAreReadWithoutWaiting() throws {
        let pair = try pair(readAhead: true)
        let outcome = pair.handshake()
        try #require(outcome.client.isDone && outcome.server.isDone)
        let record = patternBytes(20, seed: 3)
        try pair.client.writeAll(record, deadline: .now + .seconds(10))
        var small = [UInt8](repeating: 0, count: 10)
        let result = small.withUnsafeMutableBytes { pair.server.read(into: $0, deadline: .now + .seconds(10)) }
        guard case .bytes(10) = result else { Issue.record("expected 10 bytes, got \(result)"); return }
        #expect(small == Array(record[..<10]))
        #expect(pair.server.hasBufferedData)
        #expect(try pair.server.waitUntil(.readable, deadline: .now))
        let rest = small.withUnsafeMutableBytes { pair.server.read(into: $0) }
        guard case .done(10) = rest else { Issue.record("expected the other 10, got \(rest)"); return }
        #expect(small == Array(record[10...]))
    }

    /// The error `body` throws, or `nil`.
    private func failure(_ body: () throws(TLSError) -> Void) -> TLSError? {
        do {
            try body()
            return nil
        } catch { return error }
    }

    /// Writes `bytes` to the connection's socket below TLS, as a hostile peer would.
    private func rawWrite(_ bytes: [UInt8], to connection: TLSConnection) throws {
        let written = bytes.withUnsafeBytes { Glibc.write(connection.fileDescriptor, $0.baseAddress, $0.count) }
        try #require(written == bytes.count, "raw write: \(written)")
    }

    /// Runs `body` and returns its result with the CPU time this thread spent in it.
    private func threadCPU<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
        let start = threadCPUTime()
        let result = try body()
        return (result, threadCPUTime() - start)
    }

    private func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
