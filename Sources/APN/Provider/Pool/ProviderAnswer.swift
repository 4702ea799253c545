import APNHTTP2
import APNSupport
import Foundation

/// Apple's answer to one request, read from the response's status, headers and JSON body
/// (`{"reason":"BadDeviceToken"}`, `{"reason":"Unregistered","timestamp":1700000000000}`).
struct ProviderAnswer: Sendable, Equatable {
    /// The same answer: the `apns-id`s compared as UUIDs (either case of text).
    static func == (lhs: ProviderAnswer, rhs: ProviderAnswer) -> Bool {
        lhs.status == rhs.status && lhs.apnsID == rhs.apnsID && lhs.uniqueID == rhs.uniqueID && lhs.reason == rhs.reason
            && lhs.timestamp == rhs.timestamp && lhs.exchange == rhs.exchange
    }

    var status: Int
    /// The `apns-id` as a UUID, the type the notification set (``Notification/apnsID``); nil
    /// for a value that is no UUID. Parsed from ``apnsIDText`` when asked for: parsed with
    /// every answer, it cost about 250 instructions a request that a sender counting its
    /// answers never reads.
    var apnsID: UUID? { apnsIDText.uuid }
    /// The `apns-id` as received.
    var apnsIDText: FieldText
    var uniqueID: FieldText
    var reason: ProviderReason?
    /// The 410 timestamp: milliseconds since 1970 in Apple's body.
    var timestamp: Date?
    /// What only an exchange's answer carries (`apns-request-id`, `apns-channel-id`, a
    /// body on success); nil when none came, as for every device's answer.
    var exchange: ProviderExchangeAnswer?

    /// The response fields read besides `:status` (the session keeps no other).
    static let fieldsRead = ["apns-id", "apns-unique-id", "apns-request-id", "apns-channel-id"]

    /// The largest response body read as JSON; Apple's are under 100 bytes.
    static let bodyLimit = 4_096

    /// ``read(headers:body:exchange:)`` as an initializer (tests).
    init(headers: HTTP2HeaderList, body: [UInt8], exchange isExchange: Bool = false) throws(ProviderError) {
        self = try Self.read(headers: headers, body: body, exchange: isExchange)
    }

    /// Reads an answer. A status that is not a number is a protocol error; a refusal whose
    /// body is not the JSON object Apple sends still counts by its status; a reason string
    /// this library does not know is kept as it came. An `exchange`'s answer (a request
    /// naming no device) keeps its extra fields and a success's body (``exchange``); a
    /// device's keeps neither.
    ///
    /// A function returning the answer it builds, not an initializer: a throwing
    /// initializer built the answer and then copied it into `self` (a retain and release
    /// of each of its references, every answer).
    static func read(headers: HTTP2HeaderList, body: [UInt8], exchange isExchange: Bool = false) throws(ProviderError)
        -> ProviderAnswer
    {
        let answer = readIfValid(headers: headers, body: body, exchange: isExchange)
        guard answer.status != 0 else { throw ProviderError(code: .protocolError, message: invalidStatus) }
        return answer
    }

    /// What an answer without a valid `:status` is (``readIfValid(headers:body:exchange:)``'s
    /// status 0).
    static let invalidStatus = "a response without a valid :status"

    /// ``read(headers:body:exchange:)``, an answer of status 0 where that throws (no valid
    /// `:status`). Not throwing: a throwing function copied the answer it returned and
    /// destroyed the original (a retain and a release of each reference, every answer).
    static func readIfValid(headers: HTTP2HeaderList, body: [UInt8], exchange isExchange: Bool) -> ProviderAnswer {
        // Read as bytes: a string is made only of a value kept as one. The answer is filled
        // in where it is returned from, and read without a closure: built at the end of its
        // parts, or captured by the cursor's closure, it was copied out and the original
        // destroyed (a retain and a release of each reference, every answer).
        var answer = ProviderAnswer(status: 0)
        var read = FieldsRead()
        // `headers`, a parameter, lives unchanged through the call: the cursor stays valid.
        var cursor = headers.unsafeFieldCursor
        while let (name, value) = cursor.next() { read.take(name: name, value: value, into: &answer) }
        // One way out (a second return, for a missing status, copied the answer on both).
        let status = read.status.flatMap { (100...599).contains($0) ? $0 : nil } ?? 0
        let success = Self.isSuccess(status)
        answer.status = status
        if status != 0, isExchange && (read.requestID != nil || read.channelID != nil || (success && !body.isEmpty)) {
            answer.exchange = ProviderExchangeAnswer(
                requestID: read.requestID, channelID: read.channelID.take(), body: success ? body : [])
        }
        if status != 0, !success, !body.isEmpty, body.count <= Self.bodyLimit,
            let object = try? JSONParser(maximumDepth: 4, maximumSize: Self.bodyLimit).parseObject(bytes: body)
        {
            // (Apple always sends a JSON reason; a proxy in between may not. The status
            // still decides what happens.)
            if case .string(let text)? = object["reason"] { answer.reason = ProviderReason(rawValue: text) }
            if case .number(let milliseconds)? = object["timestamp"], milliseconds.isFinite {
                answer.timestamp = Date(timeIntervalSince1970: milliseconds / 1_000)
            }
        }
        return answer
    }

    /// Whether `status` accepts a request: 200 (a notification, a broadcast, a channel
    /// read or list), 201 (a channel created), 204 (a channel deleted).
    /// (Compared, not looked up in a set: hashing cost more than the rest of an answer's
    /// reading.)
    @inline(__always)
    static func isSuccess(_ status: Int) -> Bool { status == 200 || status == 201 || status == 204 }

    /// A `:status` value's bytes as received: three digits (RFC 9110 §15), or nil.
    static func statusCode(_ digits: UnsafeBufferPointer<UInt8>) -> Int? {
        guard digits.count == 3 else { return nil }
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }

    /// An answer of `status` and nothing else, the fields set as they are read.
    private init(status: Int) {
        self.status = status
        apnsIDText = .absent
        uniqueID = .absent
    }

    init(status: Int, apnsID: UUID? = nil, uniqueID: String? = nil, reason: ProviderReason? = nil, timestamp: Date? = nil) {
        self.status = status
        apnsIDText = apnsID.map(FieldText.init(uuid:)) ?? .absent
        self.uniqueID = uniqueID.map(FieldText.init) ?? .absent
        self.reason = reason
        self.timestamp = timestamp
    }

    /// What to do with a request after this answer.
    var disposition: ProviderDisposition {
        switch status {
        case 200, 201, 204: .delivered
        case 403 where reason == .expiredProviderToken: .renewTokenAndRetry
        case 429 where reason == .tooManyProviderTokenUpdates: .fail
        case 429, 500...599: .retryAfterBackoff
        default: .fail
        }
    }
}

/// The fields of one answer read in one pass over its header list, besides those written
/// straight into the answer.
private struct FieldsRead {
    var status: Int?
    var requestID: UUID?
    var channelID: String?

    /// Notes field `name` if it is one an answer reads (the `apns-id` and
    /// `apns-unique-id` into `answer`).
    @inline(__always)
    mutating func take(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, into answer: inout ProviderAnswer) {
        switch ResponseFieldName(name) {
        case .status?: status = ProviderAnswer.statusCode(value)
        case .apnsID?: answer.apnsIDText = FieldText(value)
        case .uniqueID?: answer.uniqueID = FieldText(value)
        case .requestID?: requestID = UUID(apnsText: value)
        case .channelID?: channelID = String(decoding: value, as: UTF8.self)
        case nil: break
        }
    }
}

/// The response fields an answer reads, told from a received name by its length and its
/// bytes compared a word at a time (two overlapping loads cover a name): matched against
/// strings, each name cost a `String` view and a comparison loop, about 70 instructions,
/// for three fields an answer.
enum ResponseFieldName: Equatable {
    case status, apnsID, uniqueID, requestID, channelID

    /// The field `name` is, if it is one of them (byte for byte: received names are lowercase).
    @inline(__always)
    init?(_ name: UnsafeBufferPointer<UInt8>) {
        guard let base = name.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        func word32(_ offset: Int) -> UInt32 { UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        func word64(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        switch name.count {
        case 7:
            // ":sta" + "atus", "apns" + "s-id": bytes 0–3 and 3–6, the first byte lowest.
            switch (word32(0), word32(3)) {
            case (0x6174_733A, 0x7375_7461): self = .status
            case (0x736E_7061, 0x6469_2D73): self = .apnsID
            default: return nil
            }
        case 14:
            // "apns-uni" + "unique-id": bytes 0–7 and 6–13.
            guard word64(0) == 0x696E_752D_736E_7061, word64(6) == 0x6469_2D65_7571_696E else { return nil }
            self = .uniqueID
        case 15:
            // "apns-req" / "apns-cha" + bytes 7–14.
            switch (word64(0), word64(7)) {
            case (0x7165_722D_736E_7061, 0x6469_2D74_7365_7571): self = .requestID
            case (0x6168_632D_736E_7061, 0x6469_2D6C_656E_6E61): self = .channelID
            default: return nil
            }
        default:
            return nil
        }
    }
}

/// What an exchange's answer carries besides a device's: made only when one of them came,
/// so a device's answer carries one nil reference. A class, for that reference.
final class ProviderExchangeAnswer: Sendable, Equatable {
    /// `apns-request-id`, echoed or made by Apple.
    let requestID: UUID?
    /// `apns-channel-id` (a channel created).
    let channelID: String?
    /// The body of an accepted request (a channel's configuration, the list of channels),
    /// bounded by the session (``Provider/Options/responseBodyLimit``).
    let body: [UInt8]

    /// An exchange's answer that carried none of them, or no answer.
    static let empty = ProviderExchangeAnswer(requestID: nil, channelID: nil, body: [])

    init(requestID: UUID?, channelID: String?, body: [UInt8]) {
        self.requestID = requestID
        self.channelID = channelID
        self.body = body
    }

    static func == (lhs: ProviderExchangeAnswer, rhs: ProviderExchangeAnswer) -> Bool {
        lhs.requestID == rhs.requestID && lhs.channelID == rhs.channelID && lhs.body == rhs.body
    }
}

/// What a request's answer (or its stream's end) asks of the provider.
enum ProviderDisposition: Equatable, Sendable {
    /// Accepted: report success.
    case delivered
    /// Report the failure; sending it again cannot succeed.
    case fail
    /// Send it again after a backoff, within the retry limit (429, 5xx).
    case retryAfterBackoff
    /// Send it again at once (on a new connection after a GOAWAY): the server never processed it
    /// (REFUSED_STREAM, or above a GOAWAY's last stream id).
    case retryNow
    /// Renew the provider token and send it again, once (`ExpiredProviderToken`).
    case renewTokenAndRetry
}
