import Foundation

/// Starts the gateway's threads, counting each in ``SharedState`` so that
/// ``MockGateway/stop(timeout:)`` can wait for all of them to finish.
enum ThreadLauncher {
    static func start(_ name: String, shared: SharedState, _ body: @escaping @Sendable () -> Void) {
        shared.threadStarting()
        let thread = Thread {
            body()
            shared.threadFinished()
        }
        thread.name = name
        thread.start()
    }
}
