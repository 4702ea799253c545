import APNWire
import FuzzSupport

/// libFuzzer's entry: byte 0 picks the token limit (0 means the default 100), byte 1 how
/// many chunk-size bytes follow; the rest is fed in chunks of those sizes, draining
/// `next()` after each until nil or a `WireError`, then `finish()`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeedbackDecoder(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let limitByte = input.byte()
    let maxTokenLength = limitByte == 0 ? 100 : Int(limitByte)
    let sizes = Array(input.take(Int(input.byte() % 8)))
    var decoder = FeedbackDecoder(maxTokenLength: maxTokenLength)
    var fed = 0
    var consumed = 0
    var failed = false
    for chunk in FuzzInput.chunks(of: input.rest(), sizes: sizes) {
        Array(chunk).withUnsafeBytes { decoder.feed($0) }
        fed += chunk.count
        do {
            while let tuple = try decoder.next() {
                precondition(!failed, "a tuple after the decoder failed")
                precondition((1...maxTokenLength).contains(tuple.token.count), "token length outside the limit")
                _ = tuple.description
                consumed += 6 + tuple.token.count
            }
        } catch {
            failed = true
        }
        precondition(consumed + decoder.bufferedByteCount == fed, "bytes lost or invented")
    }
    let leftover = decoder.finish()
    precondition(consumed + leftover == fed && decoder.bufferedByteCount == 0, "finish left bytes behind")
    return 0
}
