import Foundation

/// Runs a blocking wait on a thread of its own: blocking the cooperative pool could keep
/// the Task under test from running.
func onThread(_ body: @escaping @Sendable () -> Bool) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
