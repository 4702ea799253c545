import APN
import APNWire
import Testing
import APNTestSupport
import APNTestTraits

@Suite("APNError", .threadPerTest)
struct APNErrorTests {
    @Test("codes are distinct and named")
    func codes() {
        let codes: [APNError.Code] = [.invalidToken, .payloadTooLarge, .reservedPayloadKey, .invalidValue]
        #expect(Set(codes).count == 4)
        #expect(codes.map(\.description) == ["invalidToken", "payloadTooLarge", "reservedPayloadKey", "invalidValue"])
    }

    @Test("description is code and message; size and limit are nil unless set")
    func description() {
        let error = APNError(code: .invalidValue, message: "bad")
        #expect(error.description == "invalidValue: bad")
        #expect(error.status == nil)
        #expect(error.size == nil)
        #expect(error.limit == nil)
    }

    @Test("errors compare by every field")
    func equality() {
        let a = APNError(code: .payloadTooLarge, message: "m", status: .invalidPayloadSize, size: 300, limit: 256)
        let b = APNError(code: .payloadTooLarge, message: "m", status: .invalidPayloadSize, size: 300, limit: 256)
        let c = APNError(code: .payloadTooLarge, message: "m", status: .invalidPayloadSize, size: 301, limit: 256)
        #expect(a == b)
        #expect(a != c)
        #expect(Set([a, b, c]).count == 2)
    }

    @Test("a reserved key error has no Apple status and names the key")
    func reservedKey() {
        do {
            try Notification().setCustom("aps", "badge")
            Issue.record("a string was accepted as the custom aps")
        } catch {
            #expect(error.code == .reservedPayloadKey)
            #expect(error.status == nil)
            #expect(error.message.contains("\"aps\""))
        }
    }

    @Test("an expiry outside UInt32 is an invalid-value error", arguments: [-1.0, 4_294_967_296.0, .nan, .infinity])
    func invalidExpiry(_ seconds: Double) {
        let note = Notification().setExpiry(7)
        #expect {
            try note.setExpiry(unixTime: seconds)
        } throws: { error in
            (error as? APNError)?.code == .invalidValue
        }
        #expect(note.expiry == 7)
    }

    @Test("a fractional UNIX time is truncated")
    func fractionalExpiry() throws {
        let note = try Notification().setExpiry(unixTime: 1_700_000_000.9)
        #expect(note.expiry == 1_700_000_000)
        #expect(try note.setExpiry(unixTime: 4_294_967_295.5).expiry == UInt32.max)
    }
}
