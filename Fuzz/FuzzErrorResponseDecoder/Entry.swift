import APNWire
import FuzzSupport

/// libFuzzer's entry: byte 0 tells how many chunk-size bytes follow; the rest is fed in
/// chunks of those sizes, draining `next()` after each until nil or a `WireError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzErrorResponseDecoder(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let sizes = Array(input.take(Int(input.byte() % 8)))
    var decoder = ErrorResponseDecoder()
    var fed = 0
    var decoded = 0
    var failed = false
    for chunk in FuzzInput.chunks(of: input.rest(), sizes: sizes) {
        decoder.feed(Array(chunk))
        fed += chunk.count
        do {
            while let response = try decoder.next() {
                precondition(!failed, "a response after the decoder failed")
                _ = response.description
                decoded += 1
            }
        } catch {
            failed = true
        }
        // Six bytes per response, the rest buffered: never more than was fed.
        precondition(decoded * 6 + decoder.bufferedByteCount == fed, "bytes lost or invented")
    }
    return 0
}
