import APNWire
import FuzzSupport

/// libFuzzer's entry: byte 0 picks the limits and the `next` flavour, byte 1 how many
/// chunk-size bytes follow; the rest is fed in chunks of those sizes, draining after each.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGatewayDecoder(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let mode = input.byte()
    let sizes = Array(input.take(Int(input.byte() % 8)))
    let limits = mode & 1 == 0
        ? GatewayDecoder.Limits()
        : GatewayDecoder.Limits(tokenLengths: 1...100, framePayloadLimit: 4096, maxFrameLength: 300)
    let inPlace = mode & 2 != 0
    var decoder = GatewayDecoder(limits: limits)
    var fed = 0
    var consumed = 0
    for chunk in FuzzInput.chunks(of: input.rest(), sizes: sizes) {
        let wasFinished = decoder.isFinished
        Array(chunk).withUnsafeBytes { decoder.feed($0) }
        if !wasFinished { fed += chunk.count }
        drain(&decoder, inPlace: inPlace, consumed: &consumed)
        // What was fed is either decoded (consumed) or still buffered, never more.
        precondition(consumed + decoder.bufferedByteCount <= fed, "decoded more bytes than were fed")
        if !decoder.isFinished {
            precondition(consumed + decoder.bufferedByteCount == fed, "bytes lost while decoding")
        }
    }
    return 0
}

/// Calls `next` until it returns nil, checking each message against the limits.
func drain(_ decoder: inout GatewayDecoder, inPlace: Bool, consumed: inout Int) {
    let limits = decoder.limits
    while true {
        if inPlace {
            var length = 0
            guard let event = decoder.next({ view in
                check(view.copy(), limits)
                length = view.wireLength
            }) else { return }
            if case .notification = event { consumed += length }
        } else {
            guard let message = decoder.next() else { return }
            if case .notification(let notification) = message {
                check(notification, limits)
                consumed += notification.wireLength
            }
        }
    }
}

/// A notification the decoder accepted respects the limits it enforces.
func check(_ notification: DecodedNotification, _ limits: GatewayDecoder.Limits) {
    precondition(limits.tokenLengths.contains(notification.token.count), "token length outside the limits")
    precondition(!notification.payload.isEmpty, "empty payload accepted")
    let limit = notification.command == .frame ? limits.framePayloadLimit : limits.legacyPayloadLimit
    precondition(notification.payload.count <= limit, "payload above the limit")
    precondition(notification.wireLength > notification.token.count + notification.payload.count, "wire length too short")
}
