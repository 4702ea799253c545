import APNTLS
import Foundation
import Glibc

/// Starts the gateway's threads, counting each in ``GatewayState`` so that
/// ``MockGateway/stop(timeout:)`` (or ``HTTP2MockGateway/stop(timeout:)``) can wait for all
/// of them to finish.
enum ThreadLauncher {
    /// Starts a thread named `name` running `body`; `false` when none could be started (the
    /// system's thread or memory limit), `body` then never runs.
    static func start<Ledger: GatewayLedger & ~Copyable>(
        _ name: String, shared: GatewayState<Ledger>, _ body: @escaping @Sendable () -> Void
    ) -> Bool {
        shared.threadStarting()
        let started = shared.threadStarter.start(name) {
            body()
            shared.threadFinished()
        }
        if !started { shared.threadFinished() }
        return started
    }
}

/// How a gateway starts a thread: POSIX threads, whose failure (unlike Foundation's
/// `Thread.start()`, which fails silently) is seen and handled. Tests give one that fails.
struct ThreadStarter: Sendable {
    /// Starts a thread named `name` running `body`; whether it started.
    let start: @Sendable (_ name: String, _ body: @escaping @Sendable () -> Void) -> Bool

    /// A detached POSIX thread with the system's default attributes.
    static let system = ThreadStarter { name, body in
        let box = Unmanaged.passRetained(ThreadBody(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { argument in
            let box = Unmanaged<ThreadBody>.fromOpaque(argument!).takeRetainedValue()
            Thread.current.name = box.name
            SystemThreadName.set(box.name)  // Foundation's name reaches Linux only up to 15 bytes
            box.body()
            return nil
        }, box) == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}

/// What a new thread runs, carried through `pthread_create`'s pointer argument.
private final class ThreadBody: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
