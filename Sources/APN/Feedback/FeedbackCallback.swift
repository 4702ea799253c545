public import Foundation

extension Feedback {
    /// node-apn's `feedback` option: a closure the poller calls with what each visit reads,
    /// on the callback queue, before the listeners of ``Feedback/on(_:)``. Set in the options,
    /// it is in place before polling starts at creation, so it sees every entry.
    ///
    /// ```swift
    /// options.batchFeedback = false
    /// options.feedback = .each { time, device in print(device, time) }
    /// ```
    ///
    /// ``Options/batchFeedback`` decides when entries are delivered; the case, the shape the
    /// closure takes them in.
    public enum Callback: Sendable {
        /// node-apn's `feedback(time, device)`: called once per entry. Without
        /// ``Options/batchFeedback``, as each entry arrives (node-apn's form); with it, for
        /// each entry of a batch when the batch is delivered.
        case each(@Sendable (_ time: Date, _ device: Device) -> Void)
        /// node-apn's `feedback([{time, device}])` with ``Options/batchFeedback``: called with
        /// each batch, the final one of a visit even when empty. Without batching, with each
        /// entry alone.
        case batch(@Sendable (_ entries: [Entry]) -> Void)

        func call(with entries: [Entry]) {
            switch self {
            case .each(let body): for entry in entries { body(entry.time, entry.device) }
            case .batch(let body): body(entries)
            }
        }
    }
}
