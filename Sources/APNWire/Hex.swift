/// Lowercase hex of `bytes`, two digits a byte, no separators.
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// The bytes spelled by `text`: an even number of hex digits (either case) and nothing
/// else, or nil. Strict, for tokens given on command lines and in configurations;
/// `Device` is the lenient reader that strips spaces and `<>` first.
public func bytes(fromHex text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count.isMultiple(of: 2) else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
        guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
        bytes.append(high << 4 | low)
        index += 2
    }
    return bytes
}

/// The value of one ASCII hex digit (either case), or nil.
package func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit &- UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit &- UInt8(ascii: "a") &+ 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit &- UInt8(ascii: "A") &+ 10
    default: nil
    }
}

private let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
