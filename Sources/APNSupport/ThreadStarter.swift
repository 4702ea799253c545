import Foundation
import Glibc

/// How a server starts a thread: POSIX threads, whose failure (unlike Foundation's
/// `Thread.start()`, which fails silently) is seen and handled. Tests give one that fails.
package struct ThreadStarter: Sendable {
    /// Starts a thread named `name` running `body`; whether it started.
    package let start: @Sendable (_ name: String, _ body: @escaping @Sendable () -> Void) -> Bool

    /// A starter that starts threads with `start`.
    package init(start: @escaping @Sendable (_ name: String, _ body: @escaping @Sendable () -> Void) -> Bool) {
        self.start = start
    }

    /// A detached POSIX thread with the system's default attributes.
    package static let system = ThreadStarter { name, body in
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
