import APN
import APNWire

/// `apn-bench encode`: how fast frames are encoded into an outgoing buffer.
///
/// 1. Command 2 frames of one precompiled 100-byte payload to distinct 32-byte tokens,
///    appended to a 1 MiB buffer that is emptied when full (as a socket write would).
///    The buffer is warm after the unmeasured round, so encoding allocates nothing per
///    frame: `valgrind apn-bench encode --frames N --rounds 1` reports the same number of
///    heap allocations for any N.
/// 2. The same with a payload compiled from a fresh `Notification` per frame.
enum EncodeBenchmark {
    static let bufferSize = 1 << 20

    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 20_000_000)
        let tokens = distinctTokens(count: 65_536)
        let payload = try precompiledPayload(length: 100)
        let frameLength = WireBuffer.frameNotificationLength(tokenCount: 32, payloadCount: payload.count)
        print("encode: command 2, 32-byte tokens (\(tokens.count) distinct), \(payload.count)-byte payload, "
            + "\(frameLength)-byte frames, \(options.operations) frames a round, \(options.rounds) rounds")
        // `--only precompiled` runs the first measurement alone (for allocation counting).
        if options.includes("precompiled") {
            let seconds = measurePrecompiled(options, tokens: tokens, payload: payload)
            report("precompiled payload", operations: options.operations, seconds: seconds,
                   unit: "frames/s", bytesPerOperation: frameLength)
        }
        if options.includes("compiled") {
            // Compiling costs far more than encoding: a tenth of the frames keeps rounds short.
            let count = max(options.operations / 10, 1)
            let seconds = measureCompiled(count: count, rounds: options.rounds, tokens: tokens)
            report("payload compiled per notification", operations: count, seconds: seconds, unit: "notifications/s")
        }
    }

    static func measurePrecompiled(_ options: BenchOptions, tokens: [[UInt8]], payload: [UInt8]) -> [Double] {
        let frameLength = WireBuffer.frameNotificationLength(tokenCount: 32, payloadCount: payload.count)
        var buffer = WireBuffer(capacity: bufferSize)
        var flushed = 0
        let seconds = measureRounds(options.rounds) {
            for index in 0..<options.operations {
                if buffer.readableBytes > bufferSize - frameLength {
                    flushed &+= buffer.readableBytes
                    buffer.clear()
                }
                buffer.writeFrameNotification(
                    identifier: UInt32(truncatingIfNeeded: index &+ 1), expiry: 0, priority: 10,
                    token: tokens[index & (tokens.count - 1)], payload: payload)
            }
        }
        blackHole(flushed &+ buffer.readableBytes)
        return seconds
    }

    static func measureCompiled(count: Int, rounds: Int, tokens: [[UInt8]]) -> [Double] {
        var buffer = WireBuffer(capacity: bufferSize)
        let seconds = measureRounds(rounds) {
            for index in 0..<count {
                if buffer.readableBytes > bufferSize - 512 {
                    buffer.clear()
                }
                let note = Notification()
                    .setAlertText("Message \(index) for you")
                    .setBadge(index & 0xFF)
                    .setSound("ping.aiff")
                buffer.writeFrameNotification(
                    identifier: UInt32(truncatingIfNeeded: index &+ 1), expiry: 0, priority: 10,
                    token: tokens[index & (tokens.count - 1)], payload: note.compiledPayload())
            }
        }
        blackHole(buffer.readableBytes)
        return seconds
    }

    /// `count` tokens that differ in their first four bytes.
    static func distinctTokens(count: Int) -> [[UInt8]] {
        (0..<count).map { index in
            var token = [UInt8](repeating: 0xA5, count: 32)
            withUnsafeBytes(of: UInt32(index).bigEndian) { token.replaceSubrange(0..<4, with: $0) }
            return token
        }
    }

    /// A real notification payload padded through its alert text to exactly `length` bytes.
    static func precompiledPayload(length: Int) throws -> [UInt8] {
        let note = Notification().setBadge(1).setSound("default")
        try note.setCustom("messageFrom", "Caroline")
        // One character of alert, not an empty one: empty strings are left out of the payload
        // (node-apn's rule), so an empty alert would measure the base without `"alert":""`.
        note.setAlertText("x")
        let padding = length - note.length() + 1
        guard padding >= 1 else { throw BenchUsageError(description: "payload base exceeds \(length) bytes") }
        note.setAlertText(String(repeating: "x", count: padding))
        let bytes = note.compiledPayload()
        precondition(bytes.count == length, "payload is \(bytes.count) bytes, wanted \(length)")
        return bytes
    }
}
