import APNFeedbackStore

/// The check before each visit that the store can take what the visit hands over
/// (``TokenStore/checkWritable(freeBytes:)``). The feedback service serves each tuple once, so
/// a visit to a store that cannot commit would take tuples only to lose them: while the check
/// fails, the service does not connect. Told once when the check starts failing and once
/// when it passes again (``FeedbackService/Event/storeUnwritable(_:retrying:)``,
/// ``FeedbackService/Event/storeWritableAgain``), not at every retry.
struct FeedbackStoreCheck {
    let store: TokenStore
    /// The room to prove on the store's disk.
    let freeBytes: Int
    /// Whether the last check failed (and was told).
    private var failing = false

    init(store: TokenStore, freeBytes: Int) {
        self.store = store
        self.freeBytes = freeBytes
    }

    /// Checks; nil when the store can be written. `retrying`: whether another check follows,
    /// or this one decides the run (polling once).
    mutating func run(retrying: Bool, events: (FeedbackService.Event) -> Void) -> StoreError? {
        do throws(StoreError) {
            try store.checkWritable(freeBytes: freeBytes)
        } catch {
            if !failing {
                failing = true
                events(.storeUnwritable(error, retrying: retrying))
            }
            return error
        }
        if failing {
            failing = false
            events(.storeWritableAgain)
        }
        return nil
    }
}
