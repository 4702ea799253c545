import APNHTTP2

/// A request's `:path`, left in the header list it arrived in (which this keeps alive)
/// rather than made a string: it differs in every request, so a string cost an allocation,
/// a UTF-8 check and a release each time, and validation and the record read only its bytes.
struct RequestPath {
    private let fields: HTTP2HeaderList
    /// Where the `:path` field starts in `fields` (``HTTP2HeaderList/field(atByte:_:)``).
    private let offset: Int

    /// The value of the field at `offset` in `fields`.
    init(in fields: HTTP2HeaderList, atByte offset: Int) {
        self.fields = fields
        self.offset = offset
    }

    /// Calls `body` with the path's bytes, valid during the call.
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var result: Result?
        fields.withValue(atByte: offset) { result = body($0) }
        return result!
    }

    /// The path as text.
    var string: String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the path is for broadcast push or channel management rather than a device
    /// (``RequestValidator/isBroadcastPath(_:)``).
    var isBroadcast: Bool {
        withBytes(RequestValidator.isBroadcastPath)
    }
}
