import APNFeedbackStore

/// The check before each visit that the store can take what the visit hands over
/// (``TokenStore/checkWritable(freeBytes:)``). The feedback service serves each tuple once, so
/// a visit to a store that cannot commit would take tuples only to lose them: while the check
/// fails, `apn feedback-service` does not connect. Said on standard error once when the check
/// starts failing and once when it passes again, not at every retry.
struct StoreCheck {
    let store: TokenStore
    /// The room to prove on the store's disk.
    let freeBytes: Int
    /// Whether the last check failed (and was reported).
    private var failing = false

    init(store: TokenStore, freeBytes: Int) {
        self.store = store
        self.freeBytes = freeBytes
    }

    /// Checks; nil when the store can be written. `retrying`: whether another check follows
    /// (the message says so), or this one decides the run (`--once`).
    mutating func run(retrying: Bool) -> StoreError? {
        do throws(StoreError) {
            try store.checkWritable(freeBytes: freeBytes)
        } catch {
            if !failing {
                failing = true
                let then = retrying ? "until it can; checking again before each visit." : "--once: exiting."
                LineWriter.stderr(
                    "apn feedback-service: the token store cannot take a write: \(error). Not connecting to the "
                        + "feedback service (it serves each tuple once, and they could not be kept) \(then)")
            }
            return error
        }
        if failing {
            failing = false
            LineWriter.stderr(
                "apn feedback-service: the token store can be written again; visiting the feedback service.")
        }
        return nil
    }
}
