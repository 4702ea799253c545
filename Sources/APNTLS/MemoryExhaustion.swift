/// For the few OpenSSL writers that can fail only when memory runs out (a PEM written to
/// a memory BIO), so that their Swift wrappers need not throw: running out of memory
/// traps in Swift anyway.
enum MemoryExhaustion {
    static func trap<T>(_ what: String, _ body: () throws(TLSError) -> T) -> T {
        do {
            return try body()
        } catch {
            fatalError("\(what) failed, which happens only when memory runs out: \(error)")
        }
    }
}
