/// Formats a Double as JavaScript's `Number.prototype.toString()` does (ECMAScript
/// Number::toString, radix 10), for use inside JSON.
///
/// The digits are Swift's shortest round-trip digits (`Double.description`), which are
/// the shortest digit string that reads back as the same double, as ECMAScript requires;
/// only their layout is redone:
///
/// | value                    | JavaScript              |
/// |--------------------------|-------------------------|
/// | 3, −0                    | `3`, `0`                |
/// | 1.5, 0.1, 0.000001       | `1.5`, `0.1`, `0.000001`|
/// | 1e-7                     | `1e-7`                  |
/// | 1.2345678901234568e20    | `123456789012345680000` |
/// | 1e21                     | `1e+21`                 |
/// | NaN, ±Infinity (in JSON) | `null`                  |
enum JSNumberFormat {
    /// Below this magnitude every integral double prints as its exact integer digits.
    private static let exactIntegerBound = 9_007_199_254_740_992.0  // 2^53

    /// Appends the JSON form of `value`: its JavaScript string, or `null` if not finite.
    static func appendJSON(_ value: Double, to bytes: inout [UInt8]) {
        guard value.isFinite else {
            bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])  // null
            return
        }
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))  // also −0
            return
        }
        if value.magnitude < exactIntegerBound, value == value.rounded(.towardZero) {
            appendInteger(Int64(value), to: &bytes)
            return
        }
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        appendPositive(value.magnitude, to: &bytes)
    }

    /// The JavaScript string of a finite or non-finite double (`NaN`, `Infinity`).
    static func string(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        var bytes: [UInt8] = []
        appendJSON(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the decimal digits of an integer.
    static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Lays out a positive finite double per ECMAScript Number::toString.
    private static func appendPositive(_ value: Double, to bytes: inout [UInt8]) {
        var text = value.description
        text.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: utf8.count) { digits in
                let (count, pointPosition) = parse(utf8, into: digits)
                layOut(digits: UnsafeBufferPointer(rebasing: digits[..<count]), n: pointPosition, into: &bytes)
            }
        }
    }

    /// Reads Swift's description (`123.45`, `1e-07`, `1.2345678901234568e+20`) into the
    /// significant digits s (no leading or trailing zeros) and the ECMAScript exponent n,
    /// such that value = 0.s × 10^n.
    private static func parse(
        _ text: UnsafeBufferPointer<UInt8>,
        into digits: UnsafeMutableBufferPointer<UInt8>
    ) -> (count: Int, n: Int) {
        var count = 0
        var integerDigits = 0
        var seenPoint = false
        var exponent = 0
        var exponentSign = 1
        var inExponent = false
        var leadingZeros = 0
        for byte in text {
            switch byte {
            case UInt8(ascii: "."):
                seenPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                inExponent = true
            case UInt8(ascii: "-") where inExponent:
                exponentSign = -1
            case UInt8(ascii: "+"):
                break
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = byte - UInt8(ascii: "0")
                if inExponent {
                    exponent = exponent * 10 + Int(digit)
                    continue
                }
                if !seenPoint {
                    integerDigits += 1
                }
                if count == 0 && digit == 0 {
                    leadingZeros += 1
                } else {
                    digits[count] = byte
                    count += 1
                }
            default:
                break
            }
        }
        while count > 1 && digits[count - 1] == UInt8(ascii: "0") {
            count -= 1
        }
        return (count, integerDigits - leadingZeros + exponentSign * exponent)
    }

    /// ECMAScript Number::toString step 6 onwards, for k = digits.count and exponent n.
    private static func layOut(digits: UnsafeBufferPointer<UInt8>, n: Int, into bytes: inout [UInt8]) {
        let k = digits.count
        if k <= n && n <= 21 {
            bytes.append(contentsOf: digits)
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: n - k))
        } else if 0 < n && n <= 21 {
            bytes.append(contentsOf: digits[..<n])
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: digits[n...])
        } else if -6 < n && n <= 0 {
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -n))
            bytes.append(contentsOf: digits)
        } else {
            let e = n - 1
            bytes.append(digits[0])
            if k > 1 {
                bytes.append(UInt8(ascii: "."))
                bytes.append(contentsOf: digits[1...])
            }
            bytes.append(UInt8(ascii: "e"))
            bytes.append(e < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            appendInteger(Int64(e.magnitude), to: &bytes)
        }
    }
}
