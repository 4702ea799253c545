import APNHTTP2
import APNSupport
import Foundation

/// Apple's answer to one request, read from the response's status, headers and JSON body
/// (`{"reason":"BadDeviceToken"}`, `{"reason":"Unregistered","timestamp":1700000000000}`).
struct ProviderAnswer: Sendable, Equatable {
    var status: Int
    /// Parsed as it is read, so that a response carries the type the notification set
    /// (``Notification/apnsID``); a value that is no UUID is dropped.
    var apnsID: UUID?
    var uniqueID: FieldText?
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

    /// Reads an answer. A status that is not a number, or a refusal whose body is not the
    /// JSON object Apple sends, is a protocol error; a reason string this library does not
    /// know is kept as it came. An `exchange`'s answer (a request naming no device) keeps
    /// its extra fields and a success's body (``exchange``); a device's keeps neither.
    init(headers: HTTP2HeaderList, body: [UInt8], exchange isExchange: Bool = false) throws(ProviderError) {
        var status: Int?
        var apnsID: UUID?
        var uniqueID: FieldText?
        var requestID: UUID?
        var channelID: String?
        headers.withFieldCursor { cursor in
            // Read as bytes: a string is made only of a value kept as one. Told apart by
            // length and first byte before the bytes are compared.
            while let (name, value) = cursor.next() {
                switch (name.count, name.first) {
                case (7, UInt8(ascii: ":")) where utf8Equals(":status", name): status = Self.statusCode(value)
                case (7, UInt8(ascii: "a")) where utf8Equals("apns-id", name): apnsID = UUID(apnsText: value)
                case (14, UInt8(ascii: "a")) where utf8Equals("apns-unique-id", name):
                    uniqueID = FieldText(value)
                case (15, UInt8(ascii: "a")) where utf8Equals("apns-request-id", name): requestID = UUID(apnsText: value)
                case (15, UInt8(ascii: "a")) where utf8Equals("apns-channel-id", name):
                    channelID = String(decoding: value, as: UTF8.self)
                default: break
                }
            }
        }
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        guard let status, (100...599).contains(status) else {
            throw ProviderError(code: .protocolError, message: "a response without a valid :status")
        }
        self.status = status
        let success = Self.isSuccess(status)
        if isExchange && (requestID != nil || channelID != nil || (success && !body.isEmpty)) {
            exchange = ProviderExchangeAnswer(
                requestID: requestID, channelID: channelID, body: success ? body : [])
        }
        guard !success, !body.isEmpty else { return }
        guard body.count <= Self.bodyLimit,
            let object = try? JSONParser(maximumDepth: 4, maximumSize: Self.bodyLimit).parseObject(bytes: body)
        else {
            // Apple always sends a JSON reason; a proxy in between may not. The status
            // still decides what happens.
            return
        }
        if case .string(let text)? = object["reason"] { reason = ProviderReason(rawValue: text) }
        if case .number(let milliseconds)? = object["timestamp"], milliseconds.isFinite {
            timestamp = Date(timeIntervalSince1970: milliseconds / 1_000)
        }
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

    init(status: Int, apnsID: UUID? = nil, uniqueID: String? = nil, reason: ProviderReason? = nil, timestamp: Date? = nil) {
        self.status = status
        self.apnsID = apnsID
        self.uniqueID = uniqueID.map(FieldText.init)
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
