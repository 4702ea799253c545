import Dispatch
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

extension ThreadStarter {
    /// Starts `body` on a thread named `name`, or, when the system will not start one (its
    /// thread or memory limit), on a Dispatch worker, so that what `body` serves is still
    /// served; whether it got a thread of its own (a caller logs when not).
    package func startOrDispatch(_ name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        if start(name, body) { return true }
        DispatchQueue.global().async(execute: body)
        return false
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
