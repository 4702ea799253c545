import APN
import APNWire
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Device", .threadPerTest)
struct DeviceTests {
    static let hex = "a591bde2720d89d4086beaa843f9b061a18b36b48cd0008a1f347a5ad844be95"
    static let bytes: [UInt8] = [
        0xA5, 0x91, 0xBD, 0xE2, 0x72, 0x0D, 0x89, 0xD4, 0x08, 0x6B, 0xEA, 0xA8, 0x43, 0xF9, 0xB0, 0x61,
        0xA1, 0x8B, 0x36, 0xB4, 0x8C, 0xD0, 0x00, 0x8A, 0x1F, 0x34, 0x7A, 0x5A, 0xD8, 0x44, 0xBE, 0x95,
    ]

    @Test("hex in any dress decodes to the same 32 bytes", arguments: [
        hex,
        hex.uppercased(),
        "<a591bde2 720d89d4 086beaa8 43f9b061 a18b36b4 8cd0008a 1f347a5a d844be95>",
        "<A591BDE2 720D89D4 086BEAA8 43F9B061 A18B36B4 8CD0008A 1F347A5A D844BE95>",
        "a5-91-bd-e2-72-0d-89-d4-08-6b-ea-a8-43-f9-b0-61-a1-8b-36-b4-8c-d0-00-8a-1f-34-7a-5a-d8-44-be-95",
        "  a591bde2720d89d4086beaa843f9b061\n\ta18b36b48cd0008a1f347a5ad844be95  ",
        "→ a591bde2720d89d4086beaa843f9b061a18b36b48cd0008a1f347a5ad844be95 ✓ (ü)",
    ])
    func decodesHex(_ input: String) throws {
        let device = try Device(input)
        #expect(device.token == Self.bytes)
        #expect(device.description == Self.hex)
        #expect(device.hexString == Self.hex)
    }

    @Test("from bytes: kept as given, printed as lowercase hex")
    func fromBytes() throws {
        let device = try Device(token: Self.bytes)
        #expect(device.token == Self.bytes)
        #expect("\(device)" == Self.hex)
        #expect(device == (try Device(Self.hex.uppercased())))
    }

    @Test("a token with no hex digits is an invalid-token error (status 8)", arguments: [
        "", "   ", "<>", "zz-yy", "ghijkl",
    ])
    func emptyIsError(_ input: String) {
        #expect {
            try Device(input)
        } throws: { error in
            let error = error as? APNError
            return error?.code == .invalidToken && error?.status == .invalidToken
                && error?.message.contains("no hex digits") == true
        }
    }

    @Test("an odd number of hex digits is an invalid-token error, length check or not")
    func oddIsError() {
        for validates in [true, false] {
            #expect(throws: APNError.self) { try Device("abc", validatesLength: validates) }
        }
        do {
            _ = try Device(String(Self.hex.dropLast()))
            Issue.record("63 hex digits were accepted")
        } catch {
            #expect(error.code == .invalidToken)
            #expect(error.status == .invalidToken)
            #expect(error.message.contains("odd number of hex digits (63)"))
        }
    }

    /// Issue #26 row 6: Apple's device tokens are of variable length; only 32 bytes passed.
    @Test("1 to 100 bytes pass the default length check", arguments: [
        "0a",  // 1 byte
        "0123456789abcdef",  // 8
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",  // 32
        String(repeating: "0123456789abcdef", count: 8),  // 64
        String(repeating: "ff", count: 100),  // 100
    ])
    func variableLengths(hex: String) throws {
        let device = try Device(hex)
        #expect(device.token.count == hex.count / 2)
        #expect(device.description == hex)
    }

    @Test("101 bytes fail the default length check and pass with validatesLength: false")
    func lengthCheck() throws {
        let long = String(repeating: "ab", count: 101)
        do {
            _ = try Device(long)
            Issue.record("101 bytes were accepted")
        } catch {
            #expect(error.code == .invalidToken)
            #expect(error.status == .invalidToken)
            #expect(
                error.message
                    == "device token must be 1 to 100 bytes, got 101 (set validatesLength: false to allow other lengths)"
            )
        }
        #expect(throws: APNError.self) { try Device(token: [UInt8](repeating: 1, count: 101)) }

        let relaxed = try Device(long, validatesLength: false)
        #expect(relaxed.token == [UInt8](repeating: 0xAB, count: 101))
        #expect(try Device(token: [0x01, 0xFF], validatesLength: false).description == "01ff")
    }

    @Test("empty bytes are an error even without the length check")
    func emptyBytes() {
        for validates in [true, false] {
            #expect {
                try Device(token: [], validatesLength: validates)
            } throws: { error in
                (error as? APNError)?.code == .invalidToken
            }
        }
    }

    @Test("equal tokens are equal devices and hash alike")
    func hashable() throws {
        let a = try Device(Self.hex)
        let b = try Device(token: Self.bytes)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(Device.binaryTokenLength == 32 && Device.tokenLengths == 1...100)
    }
}
