@testable import APNWire
import Foundation
import Testing

/// `apns-id` text read and written by hand, checked against Foundation's own UUID parser and
/// formatter on the same values.
@Suite struct UUIDTextTests {
    @Test func knowsACanonicalUUID() {
        #expect(UUIDText.isCanonical("123e4567-e89b-12d3-a456-426614174000"))
        #expect(UUIDText.isCanonical("123E4567-E89B-12D3-A456-426614174000"))
        #expect(!UUIDText.isCanonical(""))
        #expect(!UUIDText.isCanonical("123e4567e89b12d3a456426614174000"))
        #expect(!UUIDText.isCanonical("123e4567-e89b-12d3-a456-42661417400"))
        #expect(!UUIDText.isCanonical("123e4567-e89b-12d3-a456-4266141740000"))
        #expect(!UUIDText.isCanonical("123e4567-e89b-12d3-a456_426614174000"))
        #expect(!UUIDText.isCanonical("g23e4567-e89b-12d3-a456-426614174000"))
        #expect(!UUIDText.isCanonical("123e4567-e89b-12d3-a4561426614174000"))
        #expect(!UUIDText.isCanonical("-23e4567-e89b-12d3-a456-426614174000"))
        // 36 bytes, not 36 characters: one "é" in place of two hex digits.
        #expect(!UUIDText.isCanonical("123e4567-e89b-12d3-a456-4266141740é"))
    }

    @Test func readsTheValueMostSignificantHalfFirst() throws {
        let value = try #require(UUIDText.value(of: "00112233-4455-6677-8899-AaBbCcDdEeFf"))
        #expect(value.high == 0x0011_2233_4455_6677)
        #expect(value.low == 0x8899_AABB_CCDD_EEFF)
        #expect(UUIDText.text(high: value.high, low: value.low) == "00112233-4455-6677-8899-aabbccddeeff")
        #expect(UUIDText.text(high: 0, low: 0) == "00000000-0000-0000-0000-000000000000")
        #expect(UUIDText.text(high: .max, low: .max) == "ffffffff-ffff-ffff-ffff-ffffffffffff")
    }

    /// Every byte value at every position of a valid UUID: refused exactly when a plain
    /// reading refuses it, and read to the same value otherwise.
    @Test func agreesWithAPlainReadingAtEveryByte() {
        let valid = Array("0123abcd-EF45-6789-aBcD-ef0123456789".utf8)
        func plain(_ bytes: [UInt8]) -> (high: UInt64, low: UInt64)? {
            guard bytes.count == 36 else { return nil }
            var digits: [UInt64] = []
            for (index, byte) in bytes.enumerated() {
                if [8, 13, 18, 23].contains(index) {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                guard let value = hexValue(byte) else { return nil }
                digits.append(UInt64(value))
            }
            return (digits[..<16].reduce(0) { $0 << 4 | $1 }, digits[16...].reduce(0) { $0 << 4 | $1 })
        }
        for position in 0..<36 {
            for byte in 0...255 {
                var bytes = valid
                bytes[position] = UInt8(byte)
                let fast = bytes.withUnsafeBufferPointer { UUIDText.value(of: $0) }
                let expected = plain(bytes)
                #expect(fast?.high == expected?.high && fast?.low == expected?.low, "byte \(byte) at \(position)")
            }
        }
        for length in [0, 35, 37] {
            #expect(Array(repeating: UInt8(ascii: "0"), count: length).withUnsafeBufferPointer { UUIDText.value(of: $0) } == nil)
        }
    }

    @Test func writesExactlyThirtySixBytes() {
        var bytes = [UInt8](repeating: 0xEE, count: 40)
        bytes.withUnsafeMutableBufferPointer { UUIDText.write(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210, to: $0.baseAddress! + 2) }
        #expect(bytes[..<2] == [0xEE, 0xEE] && bytes[38...] == [0xEE, 0xEE])
        #expect(String(decoding: bytes[2..<38], as: UTF8.self) == "01234567-89ab-cdef-fedc-ba9876543210")
    }

    @Test func agreesWithFoundation() throws {
        for _ in 0..<1_000 {
            let uuid = UUID()
            let upper = uuid.uuidString
            let value = try #require(UUIDText.value(of: upper))
            #expect(UUIDText.value(of: upper.lowercased())! == value)
            #expect(UUIDText.text(high: value.high, low: value.low) == upper.lowercased())
            var bytes = (value.high.bigEndian, value.low.bigEndian)
            let rebuilt = UUID(uuid: withUnsafeBytes(of: &bytes) { $0.loadUnaligned(as: uuid_t.self) })
            #expect(rebuilt == uuid)
        }
    }

    /// Every position, each byte around the hex ranges: a digit where a hyphen belongs, or
    /// anything but a digit elsewhere, is refused.
    @Test func refusesABadByteAtEveryPosition() {
        let good = Array("0a1B2c3D-4e5F-6789-abcd-EF0123456789".utf8)
        #expect(UUIDText.isCanonical(String(decoding: good, as: UTF8.self)))
        let bad: [UInt8] = [0x00, 0x2F, 0x3A, 0x40, 0x47, 0x60, 0x67, 0x7F, 0x80, 0xFF, UInt8(ascii: "-")]
        for position in good.indices {
            let hyphen = [8, 13, 18, 23].contains(position)
            for byte in hyphen ? [UInt8(ascii: "0"), UInt8(ascii: "a"), UInt8(ascii: "_")] : bad {
                var text = good
                text[position] = byte
                #expect(UUIDText.value(of: String(decoding: text, as: UTF8.self)) == nil, "\(position): \(byte)")
            }
        }
    }
}
