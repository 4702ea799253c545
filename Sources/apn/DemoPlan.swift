/// What `apn demo` sends and which faults the mock gateway plays, fixed by the count.
struct DemoPlan {
    /// How many notifications.
    let count: Int
    /// One device token per notification: the index in the first 8 bytes, so all differ.
    let tokens: [[UInt8]]
    /// The notification whose token the gateway refuses (status 8).
    let rejectedIndex: Int
    /// After this many accepted notifications the gateway answers status 10 and closes.
    let shutdownAfter: Int
    /// After this many accepted notifications the gateway closes without a word.
    let dropAfter: Int
    /// Feedback tuples queued on the mock before anything is sent: (time, token).
    let feedback: [(time: UInt32, token: [UInt8])]

    init(count: Int) {
        self.count = count
        tokens = (0..<count).map { index in
            var token = [UInt8](repeating: 0xA5, count: 32)
            for byte in 0..<8 {
                token[byte] = UInt8(truncatingIfNeeded: UInt64(index) >> (56 - 8 * byte))
            }
            return token
        }
        rejectedIndex = count / 3
        shutdownAfter = count / 2
        dropAfter = count * 3 / 4
        feedback = [
            (1_700_000_000, tokens[rejectedIndex]),
            (1_700_000_060, tokens[1]),
            (1_700_000_120, tokens[count - 1]),
        ]
    }
}
