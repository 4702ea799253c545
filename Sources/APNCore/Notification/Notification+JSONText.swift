extension Notification {
    /// A notification whose payload is JSON text, sent as given: the same keys in the same
    /// order, numbers and string escapes exactly as written; only whitespace between tokens
    /// is left out.
    ///
    /// The text is read with `parser` (strict JSON, an object at the top, no repeated key,
    /// within the parser's depth and size limits) and becomes ``payload``, with a custom
    /// `aps` object as ``init(payload:)`` takes it. The given bytes are what is sent until a
    /// payload property changes (``setBadge(_:)``, ``trim(toLength:)`` and the like); from
    /// then on the payload is compiled from the properties, as for any notification, and
    /// numbers are written as JavaScript writes them (`1.0` becomes `1`). Size limits are
    /// checked when sending (``validate(for:voip:)``), as for any payload.
    ///
    /// ```swift
    /// let note = try Notification(payloadJSON: #"{"aps":{"alert":"Hi","badge":1.50},"n":1e3}"#)
    /// note.payloadString()  // {"aps":{"alert":"Hi","badge":1.50},"n":1e3}
    /// ```
    ///
    /// - Throws: ``APNError/Code/invalidJSON`` with ``APNError/jsonParseError`` (kind and
    ///   byte offset) for text that is not a JSON object;
    ///   ``APNError/Code/reservedPayloadKey`` when `aps` is neither an object nor `null`.
    public convenience init(payloadJSON text: String, parser: JSONParser = JSONParser()) throws(APNError) {
        try self.init(payloadJSON: Array(text.utf8), parser: parser)
    }

    /// A notification whose payload is UTF-8 JSON bytes, sent as given; see
    /// ``init(payloadJSON:parser:)-(String,_)``.
    public convenience init(payloadJSON bytes: [UInt8], parser: JSONParser = JSONParser()) throws(APNError) {
        let object: JSONObject
        do {
            object = try parser.parseObject(bytes: bytes)
        } catch {
            throw .invalidJSON(error)
        }
        try self.init(payload: object)
        let given = JSONCompactor.compact(bytes)
        withState { $0.givenJSON = given }
    }
}
