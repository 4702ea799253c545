import APNTestSupport
import APNTestTraits
import APNTLS
import Testing

/// Base64url without padding (RFC 4648 §5), encoded and decoded strictly.
@Suite(.threadPerTest) struct Base64URLTests {
    /// RFC 4648 §10's vectors without their padding, then vectors that use the two
    /// characters where base64url differs from base64 ("-" for "+", "_" for "/").
    static let vectors: [(bytes: [UInt8], text: String)] = [
        ([], ""),
        (Array("f".utf8), "Zg"),
        (Array("fo".utf8), "Zm8"),
        (Array("foo".utf8), "Zm9v"),
        (Array("foob".utf8), "Zm9vYg"),
        (Array("fooba".utf8), "Zm9vYmE"),
        (Array("foobar".utf8), "Zm9vYmFy"),
        ([0xFB, 0xFF], "-_8"),
        ([0xFF, 0xFF, 0xFF], "____"),
        ([0xF8, 0x3E, 0x0F], "-D4P"),
        // RFC 7515 Appendix C's example octets.
        ([3, 236, 255, 224, 193], "A-z_4ME"),
        // RFC 7515 Appendix A.3's JWS Protected Header.
        (Array(#"{"alg":"ES256"}"#.utf8), "eyJhbGciOiJFUzI1NiJ9"),
    ]

    @Test(arguments: vectors)
    func encodesAndDecodesTheVectors(bytes: [UInt8], text: String) {
        #expect(Base64URL.encode(bytes) == text)
        #expect(Base64URL.decode(text) == bytes)
        #expect(Base64URL.decode(Substring("." + text + ".").dropFirst().dropLast()) == bytes)
        #expect(Base64URL.encode(bytes[...]) == text, "any collection of bytes")
    }

    @Test func everyLengthAndEveryByteRoundTrips() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }
        for length in 0...bytes.count {
            let text = Base64URL.encode(bytes.prefix(length))
            #expect(text.count == (length * 4 + 2) / 3)
            #expect(Base64URL.decode(text) == Array(bytes.prefix(length)), "length \(length)")
        }
        for value in UInt8.min...UInt8.max {
            #expect(Base64URL.decode(Base64URL.encode([value])) == [value])
        }
    }

    @Test(arguments: [
        "Zg==",  // padding
        "Zm8=",
        "Zg=",
        "=",
        "Z",  // 1 more than a multiple of 4: 6 bits cannot make a byte
        "Zm9vY",
        "Zh",  // non-zero bits after the last byte
        "Zm9",
        "-_9",
        "Zm+v",  // base64's alphabet, not base64url's
        "Zm/v",
        "Zm9v\n",  // whitespace
        "Zm\n9v",
        " Zm9v",
        "Zm9 v",
        "Zm.v",
        "Zm9vé",  // outside ASCII
        "Zm\u{0}v",
    ])
    func refuses(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
