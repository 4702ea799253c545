import APNHTTP2
@testable import APNMockGateway
import Testing

/// The mock reads a request's fields from their bytes, reusing the previous request's
/// strings where the bytes repeat: every request still reads as its own fields.
@Suite struct RequestHeadersTests {
    static func request(_ fields: [(String, String)]) -> HTTP2HeaderList {
        HTTP2HeaderList(fields.map { HTTP2Header($0.0, $0.1) })
    }

    static let base: [(String, String)] = [
        (":method", "POST"), (":scheme", "https"), (":path", "/3/device/aa"), (":authority", "api.push.apple.com"),
        ("authorization", "bearer one"), ("apns-topic", "com.example.app"), ("apns-push-type", "alert"),
        ("apns-priority", "10"), ("apns-expiration", "0"), ("apns-collapse-id", "c1"), ("apns-id", "id-1"),
        ("user-agent", "test"),
    ]

    @Test func everyFieldReadIsTakenFromItsBytes() {
        var strings = RequestFieldStrings()
        let fields = RequestHeaders.read(Self.request(Self.base), reusing: &strings)
        #expect(fields.method == "POST")
        #expect(fields.path?.string == "/3/device/aa")
        #expect(fields.authorization == "bearer one")
        #expect(fields.topic == "com.example.app")
        #expect(fields.pushType == "alert")
        #expect(fields.priority == "10")
        #expect(fields.expiration == "0")
        #expect(fields.collapseID == "c1")
        #expect(fields.apnsID == "id-1")
        #expect(!fields.hasDuplicates)
    }

    @Test func theBroadcastFieldsAreReadAndTheirRepeatsCaught() {
        var strings = RequestFieldStrings()
        let broadcast = Self.base + [("apns-channel-id", "dHN0LXNyY2gtY2hubA=="), ("apns-request-id", "r-1")]
        let fields = RequestHeaders.read(Self.request(broadcast), reusing: &strings)
        #expect(fields.channelID == "dHN0LXNyY2gtY2hubA==" && fields.requestID == "r-1")
        #expect(fields.expiration == "0" && !fields.hasDuplicates)
        #expect(RequestHeaders.read(Self.request(broadcast + [("apns-channel-id", "x")]), reusing: &strings).hasDuplicates)
        #expect(RequestHeaders.read(Self.request(broadcast + [("apns-request-id", "x")]), reusing: &strings).hasDuplicates)
        #expect(RequestHeaders.read(Self.request(Self.base), reusing: &strings).channelID == nil)
    }

    @Test func aLaterRequestReadsItsOwnValuesWhetherTheyRepeatOrNot() {
        var strings = RequestFieldStrings()
        _ = RequestHeaders.read(Self.request(Self.base), reusing: &strings)
        // The same again, then each repeating field changed (longer, shorter, empty), then back.
        let same = RequestHeaders.read(Self.request(Self.base), reusing: &strings)
        #expect(same.authorization == "bearer one" && same.topic == "com.example.app" && same.priority == "10")
        let changed: [(String, String)] = [
            (":method", "GET"), (":path", "/3/device/bb"), ("authorization", "bearer two-longer"),
            ("apns-topic", "com.x"), ("apns-push-type", ""), ("apns-priority", "5"), ("apns-expiration", "12345"),
            ("apns-collapse-id", "c2"),
        ]
        let other = RequestHeaders.read(Self.request(changed), reusing: &strings)
        #expect(other.method == "GET")
        #expect(other.path?.string == "/3/device/bb")
        #expect(other.authorization == "bearer two-longer")
        #expect(other.topic == "com.x")
        #expect(other.pushType == "")
        #expect(other.priority == "5")
        #expect(other.expiration == "12345")
        #expect(other.collapseID == "c2")
        #expect(other.apnsID == nil)
        let back = RequestHeaders.read(Self.request(Self.base), reusing: &strings)
        #expect(back.method == "POST" && back.authorization == "bearer one" && back.pushType == "alert")
        // Fields a request leaves out are absent, not the last request's.
        let bare = RequestHeaders.read(Self.request([(":method", "POST"), (":path", "/3/device/cc")]), reusing: &strings)
        #expect(bare.authorization == nil && bare.topic == nil && bare.priority == nil && bare.collapseID == nil)
    }

    @Test(arguments: ["authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration",
                      "apns-collapse-id", "apns-id", "apns-something-else"])
    func aRepeatedFieldIsADuplicate(_ name: String) {
        var strings = RequestFieldStrings()
        let fields = RequestHeaders.read(Self.request(Self.base + [(name, "x"), (name, "y")]), reusing: &strings)
        #expect(fields.hasDuplicates)
    }

    @Test func namesOnlyLikeTheOnesReadAreLeftAlone() {
        var strings = RequestFieldStrings()
        // Same lengths and second bytes as names read, other bytes; a name of one byte; not apns-.
        let fields = RequestHeaders.read(Self.request([
            (":pxth", "/x"), (":mxthod", "GET"), ("apns-ix", "1"), ("apns-topix", "t"), ("a", "1"),
            ("apnsx", "1"), ("apnsx", "2"), ("x-apns-id", "1"), ("x-apns-id", "2"),
        ]), reusing: &strings)
        #expect(fields.path == nil && fields.method == nil && fields.apnsID == nil && fields.topic == nil)
        #expect(!fields.hasDuplicates)
    }
}
