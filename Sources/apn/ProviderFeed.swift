import APN

/// Hands `apn send --http2`'s notifications to the provider a chunk at a time, two chunks
/// in flight (a chunk is what the provider's streams carry at once), so that a stop leaves
/// at most two chunks handed over and what was never handed over is known to be unsent.
/// Once the provider gives up connecting (``ProviderError/Code/connectionFailed`` with
/// nothing written), the rest fail with the same error instead of each chunk trying the
/// whole `--retry-limit` again.
///
/// Each chunk's responses go to the caller as they come and are not kept: a 100,000-token
/// send holds two chunks of responses, not 100,000.
struct ProviderFeed: Sendable {
    let provider: Provider
    let notification: APN.Notification
    let devices: [Device]
    let chunkSize: Int
    let interrupt: SendInterrupt

    /// Chunks handed over and not yet answered, at most.
    static let chunksInFlight = 2

    /// Sends, calling `answered` with each chunk's responses (in order within the chunk;
    /// chunks in the order answered) and, after a give-up, with the failure of each
    /// notification not handed over. Returns how many were handed over or failed so: the
    /// devices from there on were never sent (a stop came first). Cancelling the task
    /// withdraws what is not answered yet (as ``Provider`` does).
    func run(_ answered: ([ProviderResponse]) -> Void) async -> Int {
        var next = 0
        var gaveUp: ProviderError?
        await withTaskGroup(of: [ProviderResponse].self) { group in
            var running = 0
            while true {
                while running < Self.chunksInFlight, next < devices.count, gaveUp == nil, !interrupt.isRequested {
                    // A slice: the devices are not copied (a retain and release of each).
                    let chunk = devices[next..<min(next + chunkSize, devices.count)]
                    next += chunk.count
                    running += 1
                    group.addTask { [provider, notification] in await provider.send(notification, to: chunk) }
                }
                guard running > 0, let responses = await group.next() else { break }
                running -= 1
                for response in responses {
                    if let error = response.error, error.code == .connectionFailed || error.code == .authentication,
                       response.attempts == 0
                    {
                        gaveUp = gaveUp ?? error
                    }
                }
                answered(responses)
            }
        }
        guard let gaveUp else { return next }
        for start in stride(from: next, to: devices.count, by: chunkSize) {
            answered(devices[start..<min(start + chunkSize, devices.count)].map {
                ProviderResponse(device: $0, error: gaveUp, status: nil, apnsID: nil, uniqueID: nil, attempts: 0)
            })
        }
        return devices.count
    }
}
