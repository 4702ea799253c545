import APN

/// Hands `apn send --http2`'s notifications to the provider a chunk at a time, two chunks
/// in flight (a chunk is what the provider's streams carry at once), so that a stop leaves
/// at most two chunks handed over and what was never handed over is known to be unsent.
/// Once the provider gives up connecting (``ProviderError/Code/connectionFailed`` with
/// nothing written), the rest fail with the same error instead of each chunk trying the
/// whole `--retry-limit` again.
struct ProviderFeed: Sendable {
    let provider: Provider
    let notification: APN.Notification
    let devices: [Device]
    let chunkSize: Int
    let interrupt: SendInterrupt

    /// Chunks handed over and not yet answered, at most.
    static let chunksInFlight = 2

    /// One response per device, `nil` for those never handed over (a stop came first).
    /// Cancelling the task withdraws what is not answered yet (as ``Provider`` does).
    func run() async -> [ProviderResponse?] {
        var responses = [ProviderResponse?](repeating: nil, count: devices.count)
        var next = 0
        var gaveUp: ProviderError?
        await withTaskGroup(of: (Int, [ProviderResponse]).self) { group in
            var running = 0
            while true {
                while running < Self.chunksInFlight, next < devices.count, gaveUp == nil, !interrupt.isRequested {
                    let start = next
                    let chunk = Array(devices[start..<min(start + chunkSize, devices.count)])
                    next += chunk.count
                    running += 1
                    group.addTask { [provider, notification] in (start, await provider.send(notification, to: chunk)) }
                }
                guard running > 0, let (start, answered) = await group.next() else { break }
                running -= 1
                for (offset, response) in answered.enumerated() {
                    responses[start + offset] = response
                    if let error = response.error, error.code == .connectionFailed || error.code == .authentication,
                       response.attempts == 0
                    {
                        gaveUp = gaveUp ?? error
                    }
                }
            }
        }
        if let gaveUp {
            for index in next..<devices.count {
                responses[index] = ProviderResponse(
                    device: devices[index], error: gaveUp, status: nil, apnsID: nil, uniqueID: nil, attempts: 0)
            }
        }
        return responses
    }
}
