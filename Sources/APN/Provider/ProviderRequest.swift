@_spi(APNBridge) import APNCore
import APNHTTP2
import APNWire
import Foundation

/// One notification for one device as an HTTP/2 request to Apple's provider API: the
/// header fields (without `authorization`, added when written so a renewed provider token
/// is used on a retry) and the payload as the body. Or an *exchange*: a request of Apple's
/// that names no device (a broadcast, a channel management request), its `:path` fixed in
/// its ``Template`` (``Template/isExchange``).
///
/// Made before anything is sent, so a notification Apple would refuse for its form alone
/// (payload too large, priority or collapse id out of range, no topic where one is needed)
/// is refused here, typed, without a round trip.
struct ProviderRequest: Sendable {
    /// The device; for an exchange, ``exchangeDevice``.
    let device: Device
    /// The notification's header fields, shared by every device it goes to (and, forwarded,
    /// by every payload with the same fields): a waiting request holds references, not its
    /// own header list.
    let template: Template
    /// The payload when it is the request's own (a forwarded payload under a template many
    /// share); nil when it is the template's (one notification to many devices), read from
    /// there: a reference fewer for each waiting request to hold (a retain and a release).
    private let ownBody: [UInt8]?

    /// The payload.
    var body: [UInt8] { ownBody ?? template.body }

    /// The header fields, `:path` naming the device (the tests' view; the I/O thread
    /// appends them to its scratch list with ``appendHeaders(to:)``).
    var headers: [HTTP2Header] {
        var headers: [HTTP2Header] = []
        appendHeaders(to: &headers)
        return headers
    }

    /// Appends the header fields, `:path` naming the device, to `headers`.
    func appendHeaders(to headers: inout [HTTP2Header]) {
        let start = headers.count
        headers.append(contentsOf: template.headers)
        guard !template.isExchange else { return }
        headers[start + Template.pathIndex].value = hexString(device.token, after: Self.pathPrefix)
    }

    /// Queues the request on `session`, `extra` (the `authorization` field) after its fields:
    /// the stream id.
    func submit(on session: HTTP2Session, appending extra: HTTP2HeaderBlock?) throws(HTTP2Error) -> Int32 {
        // The body passed where it lies, the request's or the template's (``body`` would
        // make a reference of it: a retain and a release).
        if let ownBody { return try submit(on: session, appending: extra, body: ownBody) }
        return try submit(on: session, appending: extra, body: template.body)
    }

    private func submit(on session: HTTP2Session, appending extra: HTTP2HeaderBlock?, body: [UInt8]) throws(HTTP2Error) -> Int32 {
        guard !template.isExchange else {
            return try session.submitRequest(template.block, path: nil, appending: extra, body: body)
        }
        return try withPath { (path) throws(HTTP2Error) in
            // `/3/device/` and hex digits: valid in a header value as written.
            try session.submitRequest(template.block, path: path, pathIsValid: true, appending: extra, body: body)
        }
    }

    /// What an exchange's request names as its device: the pool's unit is a device's
    /// request, and its response a device's. It never reaches a caller — a broadcast or a
    /// channel request is answered as a ``BroadcastResponse`` or a channel — and an
    /// exchange's failure makes no ``ProviderEvent/failed(_:)`` event.
    static let exchangeDevice = Device(unvalidated: [0])

    /// Calls `body` with this request's `:path` (`/3/device/` and the token in lowercase
    /// hex), written on the stack: no string is made for it.
    func withPath<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let token = device.token
        let count = Self.pathPrefix.utf8CodeUnitCount + 2 * token.count
        return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { (path) throws(Failure) -> Result in
            Self.pathPrefix.withUTF8Buffer { prefix in
                path.copyMemory(from: UnsafeRawBufferPointer(prefix))
                token.withUnsafeBufferPointer { writeHexDigits(of: $0, to: path.baseAddress! + prefix.count) }
            }
            return try body(UnsafeRawBufferPointer(path))
        }
    }

    /// What every device's `:path` starts with.
    static let pathPrefix: StaticString = "/3/device/"

    /// The header fields of a forwarded payload's template: what a bridge's notifications
    /// mostly share, so that one template serves them (its headers built and laid out once).
    struct ForwardKey: Equatable {
        var pushType: PushType
        var priority: Int
        var expiry: UInt32
        var topic: String?
    }

    /// Throws unless a payload of `size` bytes fits the provider API's limit for `pushType`.
    static func checkPayload(size: Int, pushType: PushType) throws(ProviderError) {
        let limit = payloadLimit(for: pushType)
        guard size > limit else { return }
        throw .invalid(
            .payloadTooLarge(
                size: size, limit: limit, encoding: "utf8", context: "the HTTP/2 provider API (\(pushType) push)"))
    }

    /// The payload limit: 4 KB, 5 KB for VoIP notifications.
    static func payloadLimit(for pushType: PushType) -> Int {
        pushType == .voip ? 5_120 : 4_096
    }

    /// The longest `apns-collapse-id`, in bytes.
    static let collapseIDLimit = 64

    /// Whether `value` can be an HTTP/2 header value (RFC 9113 §8.2.1: no NUL, CR or LF,
    /// no space or tab at either end; other control characters are refused too).
    static func isValidHeaderValue(_ value: String) -> Bool {
        let bytes = value.utf8
        if let first = bytes.first, first == 0x20 || first == 0x09 { return false }
        if let last = bytes.last, last == 0x20 || last == 0x09 { return false }
        return !bytes.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// Builds the request (``Template`` once, then the device's path).
    ///
    /// - Throws: ``ProviderError/Code/invalidNotification``, with the ``APNError`` saying what.
    init(
        _ notification: Notification, to device: Device, authority: String, defaultTopic: String?,
        requiresTopic: Bool
    ) throws(ProviderError) {
        self = try Template(
            notification, authority: authority, defaultTopic: defaultTopic, requiresTopic: requiresTopic
        ).request(to: device)
    }

    private init(device: Device, template: Template, ownBody: [UInt8]?) {
        self.device = device
        self.template = template
        self.ownBody = ownBody
    }

    /// What every device's request for one notification shares: read from the notification
    /// once (under its lock once) and checked once; only `:path` differs per device. A
    /// final class with constants only (so `Sendable`): every request of the notification
    /// holds the one instance.
    final class Template: Sendable {
        /// The header fields, `:path` (index 2) to be filled in.
        fileprivate let headers: [HTTP2Header]
        /// `headers` laid out for nghttp2, `:path` to be filled in per device.
        fileprivate let block: HTTP2HeaderBlock
        fileprivate let body: [UInt8]
        fileprivate static let pathIndex = 2
        /// A request naming no device, its `:path` in ``headers`` (a broadcast, a channel
        /// management request).
        let isExchange: Bool
        /// The fields a forwarded payload's template was made from, to be found again
        /// (``Provider/forward(_:completion:)``); nil for every other template.
        let forwardKey: ForwardKey?
        /// Whether a 5xx answer is retried (after a backoff, as a 429 is). Not for a request
        /// that must not be repeated once the server may have acted on it (a channel create:
        /// two channels).
        let retriesServerErrors: Bool

        /// Reads and checks the notification.
        ///
        /// - Parameters:
        ///   - authority: the `:authority` (the host Apple's API is reached at).
        ///   - defaultTopic: used when the notification has no ``Notification/topic``.
        ///   - requiresTopic: token authentication: Apple answers `MissingTopic` without one.
        /// - Throws: ``ProviderError/Code/invalidNotification``, with the ``APNError`` saying what.
        convenience init(_ notification: Notification, authority: String, defaultTopic: String?, requiresTopic: Bool)
            throws(ProviderError)
        {
            let snapshot = notification.withState { state in
                (
                    payload: state.compiledPayload(), priority: state.priority, expiry: state.expiry,
                    topic: state.topic, pushType: state.pushType, collapseID: state.collapseID, apnsID: state.apnsID,
                    utf8: state.encoding == .utf8,
                    silent: state.contentAvailable && state.alert == nil && state.badge == nil && state.sound == nil
                )
            }
            guard snapshot.utf8 else {
                throw .invalid(
                    .invalidValue("a UCS-2 payload cannot be sent through the HTTP/2 provider API, which takes UTF-8 JSON only"))
            }
            if let problem = notification.liveActivityStartProblem() { throw .invalid(.invalidValue(problem)) }
            try self.init(
                payload: snapshot.payload, pushType: snapshot.pushType ?? (snapshot.silent ? .background : .alert),
                priority: Int(snapshot.priority), expiry: snapshot.expiry, topic: snapshot.topic ?? defaultTopic,
                collapseID: snapshot.collapseID, apnsID: snapshot.apnsID, authority: authority,
                requiresTopic: requiresTopic)
        }

        /// Checks the header values and builds the header list: the one place both kinds of
        /// notification (a ``Notification``, or a payload as bytes from the bridge) become
        /// a request.
        ///
        /// - Throws: ``ProviderError/Code/invalidNotification``, with the ``APNError`` saying what.
        init(
            payload: [UInt8], pushType: PushType, priority: Int, expiry: UInt32, topic: String?, collapseID: String?,
            apnsID: UUID?, authority: String, requiresTopic: Bool, forwardKey: ForwardKey? = nil
        ) throws(ProviderError) {
            try ProviderRequest.checkPayload(size: payload.count, pushType: pushType)
            guard priority == 10 || priority == 5 || priority == 1 else {
                throw .invalid(.invalidValue("apns-priority must be 10, 5 or 1, not \(priority) (BadPriority)"))
            }
            // Apple: a background push must have priority 5 (or 1). Binary-era senders and
            // the default say 10, which meant "at once" there; a background push cannot be
            // sent at once, so 10 becomes 5 rather than a push Apple may drop.
            let priority = pushType == .background && priority == 10 ? 5 : priority
            if let collapseID, collapseID.utf8.count > ProviderRequest.collapseIDLimit {
                throw .invalid(
                    .invalidValue(
                        "apns-collapse-id is \(collapseID.utf8.count) bytes; at most \(ProviderRequest.collapseIDLimit) (BadCollapseId)"))
            }
            for (name, value) in [("apns-topic", topic), ("apns-collapse-id", collapseID)] {
                if let value, !ProviderRequest.isValidHeaderValue(value) {
                    throw .invalid(
                        .invalidValue(
                            "\(name) \(String(reflecting: value)) cannot be sent: no control characters, no space at either end"))
                }
            }
            if topic == nil && requiresTopic {
                throw .invalid(
                    .invalidValue(
                        "apns-topic is required with token authentication: set Notification.topic or Provider.Options.topic (MissingTopic)"
                    ))
            }
            // `:path` names one device: used once, so kept out of the HPACK tables, where each
            // would evict the fields every request repeats (`authorization`, `apns-topic`) and
            // make both ends send and read them out again.
            var headers: [HTTP2Header] = [
                HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "https"), HTTP2Header(":path", "", isIndexable: false),
                HTTP2Header(":authority", authority),
            ]
            if let topic { headers.append(HTTP2Header("apns-topic", topic)) }
            headers.append(HTTP2Header("apns-push-type", pushType.rawValue))
            headers.append(HTTP2Header("apns-priority", String(priority)))
            // Sent always, 0 included: as in the binary protocol, 0 means "deliver once, never
            // store" (an absent header would let Apple store the notification).
            headers.append(HTTP2Header("apns-expiration", String(expiry)))
            if let collapseID { headers.append(HTTP2Header("apns-collapse-id", collapseID)) }
            if let apnsID { headers.append(HTTP2Header("apns-id", apnsID.apnsText)) }
            do throws(HTTP2Error) {
                block = try HTTP2HeaderBlock(headers)
            } catch {
                throw .invalid(.invalidValue("a header field cannot be sent: \(error)"))
            }
            self.headers = headers
            self.body = payload
            self.forwardKey = forwardKey
            isExchange = false
            retriesServerErrors = true
        }

        /// The template for forwarded payloads with `key`'s fields (the body each request's
        /// own).
        ///
        /// - Throws: ``ProviderError/Code/invalidNotification``, as ``init(payload:pushType:priority:expiry:topic:collapseID:apnsID:authority:requiresTopic:forwardKey:)``.
        convenience init(forwarding key: ForwardKey, authority: String, requiresTopic: Bool) throws(ProviderError) {
            try self.init(
                payload: [], pushType: key.pushType, priority: key.priority, expiry: key.expiry, topic: key.topic,
                collapseID: nil, apnsID: nil, authority: authority, requiresTopic: requiresTopic, forwardKey: key)
        }

        /// An exchange: `method` on `path`, the `fields` after the pseudo-header fields,
        /// and `body`. The fields' values are checked here.
        ///
        /// - Throws: ``ProviderError/Code/invalidNotification`` when a value cannot be sent.
        init(
            exchange method: String, path: String, authority: String, fields: [HTTP2Header], body: [UInt8],
            retriesServerErrors: Bool
        ) throws(ProviderError) {
            for field in fields where !ProviderRequest.isValidHeaderValue(field.value) {
                throw .invalid(
                    .invalidValue(
                        "\(field.name) \(String(reflecting: field.value)) cannot be sent: no control characters, no space at either end"))
            }
            let headers =
                [
                    HTTP2Header(":method", method), HTTP2Header(":scheme", "https"), HTTP2Header(":path", path),
                    HTTP2Header(":authority", authority),
                ] + fields
            do throws(HTTP2Error) {
                block = try HTTP2HeaderBlock(headers, varying: [])
            } catch {
                throw .invalid(.invalidValue("a header field cannot be sent: \(error)"))
            }
            self.headers = headers
            self.body = body
            forwardKey = nil
            isExchange = true
            self.retriesServerErrors = retriesServerErrors
        }

        /// The exchange's request (``exchangeDevice`` as its device).
        var exchangeRequest: ProviderRequest {
            ProviderRequest(device: ProviderRequest.exchangeDevice, template: self, ownBody: nil)
        }

        /// The request for `device`.
        func request(to device: Device) -> ProviderRequest {
            ProviderRequest(device: device, template: self, ownBody: nil)
        }

        /// Whether this is the template for forwarded notifications with these fields (its
        /// ``forwardKey``'s), compared in place.
        func forwards(pushType: PushType, priority: Int, expiry: UInt32, topic: String?) -> Bool {
            forwardKey?.pushType == pushType && forwardKey?.priority == priority && forwardKey?.expiry == expiry
                && forwardKey?.topic == topic
        }

        /// The request for `device` carrying `payload` instead of the template's body (a
        /// forwarded notification, its size checked with ``ProviderRequest/checkPayload(size:pushType:)``).
        func request(to device: consuming Device, payload: consuming [UInt8]) -> ProviderRequest {
            ProviderRequest(device: device, template: self, ownBody: payload)
        }
    }
}
