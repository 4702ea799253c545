import APNTLS
import APNWire
import Foundation
import APNMockGateway

/// `apn-bench mock`: an in-process ``MockGateway`` and one mutual-TLS client on loopback.
/// The client writes N command 2 frames (32-byte tokens, 100-byte payloads) coalesced into
/// 16 KB writes as fast as it can; the figure is notifications decoded and recorded per
/// second, from the first write until the gateway has recorded the N-th. Each round uses a
/// fresh gateway, so the records of earlier rounds are freed.
enum MockGatewayBenchmark {
    static let payloadLength = 100
    static let writeSize = 16 * 1024

    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 2_000_000)
        let count = options.operations
        let (chunk, framesPerChunk) = coalescedFrames()
        let frameLength = chunk.count / framesPerChunk
        print("mock: one connection, \(frameLength)-byte command 2 frames in \(chunk.count)-byte writes, "
            + "\(count) notifications a round, \(options.rounds) rounds (+1 warm-up), fresh gateway each round")

        var seconds: [Double] = []
        for round in 0...options.rounds {
            let elapsed = try measureRound(count: count, chunk: chunk, frameLength: frameLength)
            if round > 0 { seconds.append(elapsed) }
        }
        report("decoded and recorded", operations: count, seconds: seconds, unit: "notifications/s",
               bytesPerOperation: frameLength)
    }

    /// One gateway, one client: seconds from the first write until `count` records.
    static func measureRound(count: Int, chunk: [UInt8], frameLength: Int) throws -> Double {
        let gateway = try MockGateway()
        defer { _ = gateway.stop() }
        try gateway.start()
        let client = try gateway.certificateAuthority.issueClientCertificate(topic: "com.example.bench")
        let context = try TLSClientContext(
            trustedCertificates: [gateway.certificateAuthority.certificate], credentials: client.credentials())
        let connection = try TLSConnection.connect(
            host: "127.0.0.1", port: gateway.gatewayPort, context: context, timeout: .seconds(5))
        defer { connection.close() }
        try connection.handshake(deadline: .now + .seconds(5))

        let clock = ContinuousClock()
        let start = clock.now
        try TLSBenchmark.writeRound(connection, chunk: chunk, bytes: count * frameLength)
        guard gateway.waitForRecords(count: count, timeout: .seconds(600)) else {
            throw BenchUsageError(description: "the gateway recorded \(gateway.recordCount) of \(count)")
        }
        let elapsed = clock.now - start
        return elapsed.inSeconds
    }

    /// Whole 161-byte command 2 frames filling at most 16 KB, and how many there are.
    static func coalescedFrames() -> (bytes: [UInt8], frames: Int) {
        var buffer = WireBuffer(capacity: writeSize)
        let payload = Array((#"{"aps":{"alert":""# + String(repeating: "x", count: payloadLength - 20) + #""}}"#).utf8)
        var identifier: UInt32 = 1
        var frames = 0
        while true {
            var next = buffer
            let token = [UInt8](repeating: UInt8(truncatingIfNeeded: identifier), count: 32)
            next.writeFrameNotification(identifier: identifier, expiry: 0, priority: 10, token: token, payload: payload)
            guard next.readableBytes <= writeSize else { break }
            buffer = next
            identifier += 1
            frames += 1
        }
        return (buffer.readableBytesArray, frames)
    }
}
