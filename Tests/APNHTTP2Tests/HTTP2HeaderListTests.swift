@testable import APNHTTP2
import APNTestSupport
import Testing

/// A request's received fields held as bytes: what goes in comes out, field for field and
/// byte for byte, through growth, copies (each copy keeps its own fields) and odd bytes.
@Suite struct HTTP2HeaderListTests {
    static let fields = [
        HTTP2Header(":method", "POST"), HTTP2Header(":path", "/3/device/" + String(repeating: "ab", count: 32)),
        HTTP2Header("authorization", "bearer abc.def.ghi"), HTTP2Header("apns-topic", "com.example.app"),
        HTTP2Header("x-empty", ""),
    ]

    @Test func fieldsComeOutAsTheyWentIn() {
        let list = HTTP2HeaderList(Self.fields)
        #expect(list.count == 5)
        #expect(Array(list) == Self.fields)
        #expect(list == Self.fields)
        #expect(list[":path"] == "/3/device/" + String(repeating: "ab", count: 32))
        #expect(list["x-empty"] == "")
        #expect(list["apns-id"] == nil)
        // Eight bytes a field for the two lengths, then the name and the value.
        #expect(list.byteCount == Self.fields.reduce(0) { $0 + 8 + $1.name.utf8.count + $1.value.utf8.count })
        #expect(list.description.hasPrefix("[:method: POST, :path: /3/device/"))
    }

    @Test func theCursorHandsOutEachFieldsBytes() {
        let list = HTTP2HeaderList(Self.fields)
        let seen = list.withFieldCursor { cursor in
            var seen: [(name: [UInt8], value: [UInt8])] = []
            while let (name, value) = cursor.next() { seen.append((Array(name), Array(value))) }
            return seen
        }
        #expect(seen.map(\.name) == Self.fields.map { Array($0.name.utf8) })
        #expect(seen.map(\.value) == Self.fields.map { Array($0.value.utf8) })
        let empty = HTTP2HeaderList().withFieldCursor { cursor in cursor.next() == nil }
        #expect(empty)
        #expect(Array(HTTP2HeaderList()).isEmpty && HTTP2HeaderList().count == 0 && HTTP2HeaderList().byteCount == 0)
    }

    @Test func aFieldIsFoundAgainByTheOffsetTheCursorGaveIt() {
        let list = HTTP2HeaderList(Self.fields)
        let offsets = list.withFieldCursor { cursor in
            var offsets = [cursor.offset]
            while cursor.next() != nil { offsets.append(cursor.offset) }
            return offsets
        }
        #expect(offsets.last == list.byteCount)
        for (field, offset) in zip(Self.fields, offsets) {
            var value: [UInt8] = []
            list.withValue(atByte: offset) { value = Array($0) }
            #expect(value == Array(field.value.utf8))
            #expect(list.field(atByte: offset) { name, _ in Array(name) } == Array(field.name.utf8))
        }
    }

    @Test(arguments: [0, 1, 9, 40, 4096])
    func appendingGrowsPastAnyReservation(_ reserved: Int) {
        var list = HTTP2HeaderList(reservingCapacity: reserved)
        var expected: [HTTP2Header] = []
        for index in 0..<200 {
            let field = HTTP2Header("x-field-\(index)", String(repeating: "v", count: index % 37))
            Self.append(field, to: &list)
            expected.append(field)
        }
        #expect(list == expected)
        #expect(list.count == 200)
    }

    @Test func aCopyKeepsItsFieldsWhenEitherGrows() {
        var first = HTTP2HeaderList(reservingCapacity: 1024)
        Self.append(HTTP2Header(":method", "POST"), to: &first)
        var second = first
        Self.append(HTTP2Header(":path", "/a"), to: &first)
        Self.append(HTTP2Header(":path", "/b"), to: &second)
        #expect(first == [HTTP2Header(":method", "POST"), HTTP2Header(":path", "/a")])
        #expect(second == [HTTP2Header(":method", "POST"), HTTP2Header(":path", "/b")])
        #expect(first != second)
        let third = second
        #expect(third == second)
    }

    @Test func equalityIsByTheBytesInOrder() {
        let list = HTTP2HeaderList(Self.fields)
        #expect(list == HTTP2HeaderList(Self.fields))
        #expect(list != HTTP2HeaderList(Self.fields.reversed()))
        #expect(list != HTTP2HeaderList(Array(Self.fields.dropLast())))
        // The same bytes split differently between name and value are different fields.
        #expect(HTTP2HeaderList([HTTP2Header("ab", "c")]) != HTTP2HeaderList([HTTP2Header("a", "bc")]))
        #expect(HTTP2HeaderList() == HTTP2HeaderList(reservingCapacity: 64))
    }

    @Test func bytesThatAreNotUTF8ComeOutRepairedAsStringsAndWholeAsBytes() {
        var list = HTTP2HeaderList()
        let value: [UInt8] = [0x61, 0xFF, 0x62]
        Array("x-raw".utf8).withUnsafeBufferPointer { name in
            value.withUnsafeBufferPointer { list.append(name: name, value: $0) }
        }
        #expect(list["x-raw"] == "a\u{FFFD}b")
        let bytes = list.withFieldCursor { cursor in cursor.next().map { Array($0.value) } }
        #expect(bytes == value)
    }

    private static func append(_ field: HTTP2Header, to list: inout HTTP2HeaderList) {
        Array(field.name.utf8).withUnsafeBufferPointer { name in
            Array(field.value.utf8).withUnsafeBufferPointer { list.append(name: name, value: $0) }
        }
    }
}

/// A server reports each request's fields as sent, whatever the request before it was: the
/// room reserved after one request (its size) holds a longer one, a shorter one, one with
/// more fields or fewer.
@Suite struct RequestFieldsTests {
    static let requests: [[HTTP2Header]] = [
        apnsHeaders(token: token(1)),
        apnsHeaders(token: token(2)),
        apnsHeaders(token: token(3)) + [HTTP2Header("apns-id", "123e4567-e89b-12d3-a456-426614174000"),
                                        HTTP2Header("apns-collapse-id", String(repeating: "c", count: 300))],
        [HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "https"), HTTP2Header(":path", "/3/device/ab"),
         HTTP2Header(":authority", "a")],
        apnsHeaders(token: token(5)),
    ]

    @Test(arguments: Chunking.all)
    func everyRequestIsReportedAsSent(_ chunking: Chunking) throws {
        let pair = try SessionPair(chunking: chunking)
        for (index, headers) in Self.requests.enumerated() {
            let streamID = try pair.client.submitRequest(headers: headers, body: [UInt8(index)])
            try pair.exchange()
            #expect(pair.serverEvents.last == .request(streamID: streamID, headers: HTTP2HeaderList(headers), body: [UInt8(index)]),
                    "request \(index)")
            try pair.server.submitResponse(streamID: streamID, headers: [HTTP2Header(":status", "200")], body: [])
            try pair.exchange()
        }
    }
}

extension RequestFieldsTests {
    /// A new stream reserves room for fields like the last request's, but never more than
    /// 4 KiB: one large request (within the 16 KiB header list limit) must not make every
    /// stream opened after it reserve as much before a field arrives.
    @Test func theRoomReservedForAStreamsFieldsIsCapped() throws {
        let pair = try SessionPair()
        let large = apnsHeaders(token: token(1)) + [HTTP2Header("apns-collapse-id", String(repeating: "c", count: 10_000))]
        let small = apnsHeaders(token: token(2))
        for (headers, reserved) in [(large, 4_096), (small, HTTP2HeaderList(small).byteCount)] {
            let streamID = try pair.client.submitRequest(headers: headers, body: [])
            try pair.exchange()
            #expect(pair.serverEvents.last == .request(streamID: streamID, headers: HTTP2HeaderList(headers), body: []))
            #expect(pair.server.reservedRequestFieldBytes == reserved)
            try pair.server.submitResponse(streamID: streamID, headers: [HTTP2Header(":status", "200")], body: [])
            try pair.exchange()
        }
    }

    /// A session's recycler hands a list's storage out again only once nothing else holds
    /// it, empty; a list still held keeps its own, and one handed out too large is not kept.
    @Test func aStorageIsReusedOnlyOnceItsReaderLetItGo() {
        var recycler = FieldStorageRecycler()
        var first = recycler.list(reservingCapacity: 64)
        HTTP2HeaderListTests.fields.forEach { field in append(field, to: &first) }
        // An identity, not a reference: one would keep the storage from being free.
        let firstStorage = first.storage.map(ObjectIdentifier.init)
        recycler.handedOut(first)
        // Still held (by `first`): a new storage.
        var second = recycler.list(reservingCapacity: 64)
        #expect(second.storage.map(ObjectIdentifier.init) != firstStorage)
        append(HTTP2Header(":status", "200"), to: &second)
        recycler.handedOut(second)
        // `first` let go: its storage comes back, holding nothing.
        first = HTTP2HeaderList()
        let reused = recycler.list(reservingCapacity: 64)
        #expect(reused.storage.map(ObjectIdentifier.init) == firstStorage)
        #expect(reused.count == 0 && reused.byteCount == 0)
        // Too large to keep.
        var large = HTTP2HeaderList(reservingCapacity: FieldStorageRecycler.largestRecycled + 1)
        append(HTTP2Header("x", String(repeating: "a", count: 2_000)), to: &large)
        let largeStorage = large.storage
        recycler.handedOut(large)
        large = HTTP2HeaderList()
        _ = second  // still held: the recycler's next is a new storage
        let next = recycler.list(reservingCapacity: 64)
        #expect(next.storage !== largeStorage && next.storage !== second.storage)
    }

    private func append(_ field: HTTP2Header, to list: inout HTTP2HeaderList) {
        var name = field.name
        var value = field.value
        name.withUTF8 { name in value.withUTF8 { value in list.append(name: name, value: value) } }
    }
}
