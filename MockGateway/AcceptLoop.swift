import APNTLS

/// The loop of an accept thread: owns one listener, accepts until the gateway stops,
/// hands each connection to `serve` (which starts its thread), then closes the listener.
enum AcceptLoop {
    static func run(_ listener: TLSListener, shared: SharedState, serve: (TLSConnection) -> Void) {
        defer { listener.close() }
        while !shared.isStopping {
            do {
                serve(try listener.accept(deadline: .now + ConnectionDriver.slice))
            } catch where error.kind == .timeout {
                continue
            } catch {
                // Out of descriptors or similar: back off for a slice instead of spinning.
                _ = shared.pause(until: .now + ConnectionDriver.slice)
            }
        }
    }
}
