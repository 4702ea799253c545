import APN
import APNTLS
import FuzzSupport

/// The readers `FuzzJSON` drives, chosen by the input's first byte.
enum JSONReader: UInt8, CaseIterable {
    case parser, notification, webToken, base64URL
}

/// libFuzzer's entry: byte 0 picks a reader (modulo their count), the rest is its input.
/// Invariants: what parses writes JSON that parses back to text identical to it; what
/// base64url decodes encodes back to text that decodes to the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let reader = JSONReader.allCases[Int(input.byte()) % JSONReader.allCases.count]
    let data = input.rest()
    switch reader {
    case .parser: checkParser(data)
    case .notification: checkNotification(data)
    case .webToken: _ = try? JSONWebToken.decode(String(decoding: data, as: UTF8.self))
    case .base64URL: checkBase64URL(String(decoding: data, as: UTF8.self))
    }
    return 0
}

/// Parses, writes, parses the writing again: the second writing must equal the first.
func checkParser(_ data: [UInt8]) {
    guard let value = try? JSONParser().parse(bytes: data) else { return }
    let written = value.jsonBytes()
    guard let again = try? JSONParser().parse(bytes: written) else {
        preconditionFailure("the parser refuses what the writer wrote: \(String(decoding: written, as: UTF8.self))")
    }
    precondition(again.jsonBytes() == written, "writing is not a fixed point")
}

/// Builds a notification from the payload and compiles it.
func checkNotification(_ data: [UInt8]) {
    guard let notification = try? Notification(payloadJSON: data) else { return }
    let payload = notification.compiledPayload()
    _ = (notification.length(), notification.payloadString(), notification.description)
    precondition((try? JSONParser().parse(bytes: payload)) != nil, "a compiled payload that does not parse")
}

/// Decodes; what decodes must encode back to the same text.
func checkBase64URL(_ text: String) {
    guard let bytes = Base64URL.decode(text) else { return }
    precondition(Base64URL.encode(bytes) == text, "decoding accepted a text that is not canonical")
}
