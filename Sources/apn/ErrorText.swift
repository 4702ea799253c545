import APN
import APNFeedbackStore

/// The words of an error as `apn` says them: the library's message, without the Swift name
/// of its code (`initialisationFailed: …`), which the JSON lines carry in `error` instead.
enum ErrorText {
    static func of(_ error: any Error) -> String {
        switch error {
        case let error as APNError: message(error)
        case let error as ProviderError: message(error)
        case let error as JSONParseError: message(error)
        case let error as UsageError: error.message
        default: "\(error)"
        }
    }

    /// The message; for a payload that is not JSON, where and what without the kind's name.
    static func message(_ error: APNError) -> String {
        guard let parse = error.jsonParseError else { return error.message }
        return "payload JSON: \(message(parse))"
    }

    /// `at byte 17: leading zeros are not allowed`.
    static func message(_ error: JSONParseError) -> String {
        "at byte \(error.offset): \(error.message)"
    }

    /// The message, with Apple's status and reason when it answered.
    static func message(_ error: ProviderError) -> String {
        var text = error.notificationError.map(message) ?? error.message
        if let status = error.status { text += " (status \(status)\(error.reason.map { ", \($0)" } ?? ""))" }
        if let requestID = error.requestID { text += " apns-request-id \(requestID.apnsText)" }
        return text
    }
}
