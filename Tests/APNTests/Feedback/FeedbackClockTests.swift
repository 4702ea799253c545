import APN
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// The feedback reader's timeouts run on the options' clock, and a cancel ends its wait at
/// once. Each timeout below is an hour on a ``ManualClock``: only the clock's advance can
/// end the wait within the suite's time limit, never the wall clock.
@Suite("Feedback: timeouts on the injected clock, wake-ups on cancel", .timeLimit(.minutes(10)), .threadPerTest)
struct FeedbackClockTests {
    @Test("the connect timeout fires when the manual clock passes it")
    func connectTimeoutOnTheClock() async throws {
        let server = try SilentServer()
        defer { server.stop() }
        let clock = ManualClock()
        let feedback = Feedback(options: RawTLSServer.Identity.shared.options(port: server.port).with {
            $0.clock = .manual(clock)
            $0.connectTimeout = .seconds(3600)
            $0.readTimeout = .zero
        })
        // Task.immediate: read() starts its visit before this test goes on, with no wait
        // for a pool thread (a loaded machine once kept a plain Task from starting for 20 s).
        let reading = Task.immediate { () -> Result<[Feedback.Entry], APNError> in
            do throws(APNError) { return .success(try await feedback.read()) } catch { return .failure(error) }
        }
        #expect(await onThread { server.wait { accepted, _ in accepted == 1 } }, "the visit is in its handshake")
        clock.advance(by: .seconds(3600))
        guard case .failure(let error) = await reading.value else {
            Issue.record("the silent server cannot have served entries")
            return
        }
        #expect(error.code == .connectTimeout, "\(error)")
        #expect(await onThread { server.wait { _, closed in closed == 1 } }, "the visit closed its socket")
    }

    @Test("the read timeout fires when the manual clock passes it")
    func readTimeoutOnTheClock() async throws {
        let tuples: [UInt8] = (1...3).flatMap { (n: Int) -> [UInt8] in [0, 0, 0, UInt8(n), 0, 32] + device(n).token }
        let server = try HeldTLSServer(sending: tuples)
        defer { server.stop() }
        let clock = ManualClock()
        let log = FeedbackLog()
        let feedback = Feedback(options: server.options {
            $0.clock = .manual(clock)
            $0.readTimeout = .seconds(3600)
            $0.batchFeedback = false  // each entry delivered as it is read
        })
        feedback.on(log.listener)
        feedback.start()
        // Delivered after the read that brought them: the silence starts then.
        #expect(log.wait { $0.batches.count == 3 })
        clock.advance(by: .seconds(3600))
        #expect(log.wait { $0.errors.count == 1 })
        #expect(log.errors.first?.message.contains("sent nothing") == true, "\(log.errors)")
        feedback.cancel()
    }

    @Test("cancel() ends a visit waiting on an unanswered handshake, with no timeout set")
    func cancelEndsTheHandshakeWait() async throws {
        let server = try SilentServer()
        defer { server.stop() }
        let feedback = Feedback(options: RawTLSServer.Identity.shared.options(port: server.port).with {
            $0.connectTimeout = .zero
            $0.readTimeout = .zero
        })
        feedback.start()
        #expect(await onThread { server.wait { accepted, _ in accepted == 1 } })
        feedback.cancel()
        #expect(await onThread { server.wait { _, closed in closed == 1 } }, "the visit ended and closed its socket")
    }

    @Test("cancelling read() ends a visit waiting on an unanswered handshake: no entries")
    func cancelledReadInTheHandshake() async throws {
        let server = try SilentServer()
        defer { server.stop() }
        let feedback = Feedback(options: RawTLSServer.Identity.shared.options(port: server.port).with {
            $0.connectTimeout = .zero
            $0.readTimeout = .zero
        })
        let reading = Task.immediate { try await feedback.read() }
        #expect(await onThread { server.wait { accepted, _ in accepted == 1 } })
        reading.cancel()
        let entries = try await reading.value
        #expect(entries.isEmpty)
    }
}

extension RawTLSServer.Identity {
    /// One identity for the tests that never finish a handshake: its certificates are
    /// never checked, so sharing it costs nothing.
    static let shared = try! RawTLSServer.Identity()
}

extension Feedback.Options {
    /// A copy changed by `change`.
    func with(_ change: (inout Feedback.Options) -> Void) -> Feedback.Options {
        var options = self
        change(&options)
        return options
    }
}
