import APN
import APNSupport
import Synchronization

/// Hands `apn send --http2`'s notifications to the provider a chunk at a time, two chunks
/// in flight (a chunk is what the provider's streams carry at once), so that a stop leaves
/// at most two chunks handed over and what was never handed over is known to be unsent.
/// Once the provider gives up connecting (``ProviderError/Code/connectionFailed`` with
/// nothing written), the rest fail with the same error instead of each chunk trying the
/// whole `--retry-limit` again.
///
/// Each response is counted as it comes, on the provider's I/O thread
/// (``Provider/send(_:to:each:)-(_,ArraySlice<Device>,_)``), into its chunk's
/// ``ProviderChunk``; only those whose lines are printed are kept. Gathered into an
/// array per chunk, every response was copied there, and the array copied out and
/// destroyed: about 900 instructions a notification, more than any one part of sending it.
struct ProviderFeed: Sendable {
    let provider: Provider
    let notification: APN.Notification
    let devices: [Device]
    let chunkSize: Int
    let interrupt: SendInterrupt
    /// Whether every response's line is printed (`--all`), not only the ones not accepted.
    let printingAll: Bool

    /// Chunks handed over and not yet answered, at most.
    static let chunksInFlight = 2

    /// Sends, calling `answered` with each chunk once all its responses came (chunks in the
    /// order answered) and, after a give-up, with the failure of each notification not
    /// handed over. Returns how many were handed over or failed so: the devices from there
    /// on were never sent (a stop came first). Cancelling the task withdraws what is not
    /// answered yet (as ``Provider`` does).
    func run(_ answered: (ProviderChunk) -> Void) async -> Int {
        var next = 0
        var gaveUp: ProviderError?
        await withTaskGroup(of: ProviderChunk.self) { group in
            var running = 0
            while true {
                while running < Self.chunksInFlight, next < devices.count, gaveUp == nil, !interrupt.isRequested {
                    // A slice: the devices are not copied (a retain and release of each).
                    let slice = devices[next..<min(next + chunkSize, devices.count)]
                    next = slice.endIndex
                    running += 1
                    group.addTask { [provider, notification, printingAll] in
                        let chunk = ProviderChunk(printingAll: printingAll)
                        await provider.send(notification, to: slice) { index, response in chunk.take(index, response) }
                        return chunk
                    }
                }
                guard running > 0, let chunk = await group.next() else { break }
                running -= 1
                gaveUp = gaveUp ?? chunk.gaveUp
                answered(chunk)
            }
        }
        guard let gaveUp else { return next }
        for start in stride(from: next, to: devices.count, by: chunkSize) {
            let chunk = ProviderChunk(printingAll: printingAll)
            for (offset, device) in devices[start..<min(start + chunkSize, devices.count)].enumerated() {
                chunk.take(
                    offset, ProviderResponse(device: device, error: gaveUp, status: nil, apnsID: nil, uniqueID: nil, attempts: 0))
            }
            answered(chunk)
        }
        return devices.count
    }
}

/// What one chunk's responses came to: the counts, and the responses whose lines are
/// printed (not accepted, or every one with `--all`). Filled on the provider's I/O thread
/// as the answers come, read once the chunk's send has returned.
final class ProviderChunk: Sendable {
    struct State {
        var counts = SendOutput.Counts()
        var retried = 0
        /// The first error that ended the send (credentials, no connection).
        var ending: ProviderError?
        /// A failure to connect or authenticate with nothing written: the rest are not sent.
        var gaveUp: ProviderError?
        /// The responses to print, with their offsets in the chunk and their outcomes.
        var printed: [(offset: Int, response: ProviderResponse, outcome: SendOutput.Outcome)] = []
    }

    let printingAll: Bool
    private let state = Lock(State())

    init(printingAll: Bool) {
        self.printingAll = printingAll
    }

    /// Counts the response of the chunk's device at `offset` (lent: kept only to be printed).
    func take(_ offset: Int, _ response: ProviderResponse) {
        let outcome = ProviderSendRun.outcome(of: response)
        state.withLock { state in
            state.counts.count(outcome)
            if response.attempts > 1 { state.retried += 1 }
            if let error = response.error, error.code == .authentication || error.code == .connectionFailed {
                // A stream lost with its connection did not end the send (the provider went
                // on with a new one); a credential failure or no connection at all did, and
                // with nothing written the rest are not sent.
                if state.ending == nil, !error.mayHaveBeenDelivered { state.ending = error }
                if state.gaveUp == nil, response.attempts == 0 { state.gaveUp = error }
            }
            if printingAll || outcome != .accepted { state.printed.append((offset, response, outcome)) }
        }
    }

    /// What the chunk came to (once its send returned).
    var result: State { state.withLock { $0 } }

    /// The failure that makes the rest go unsent, if one came.
    var gaveUp: ProviderError? { state.withLock { $0.gaveUp } }
}
