import APN
import Foundation
import MockGateway
import APNWire

/// The JSON line `apn mock-gateway --record` writes for each accepted notification.
enum RecordLine {
    /// One binary-gateway record.
    static func line(_ record: MockGateway.Record) -> String {
        JSONValue.object([
            ("connection", .integer(record.connection)),
            ("seq", .integer(record.sequence)),
            ("command", .integer(Int(record.command.rawValue))),
            ("identifier", record.identifier.map { .integer(Int($0)) } ?? .null),
            ("token", .string(hexString(record.token))),
            payload(record.payload),
            ("expiry", record.expiry.map { .integer(Int($0)) } ?? .null),
            ("priority", record.priority.map { .integer(Int($0)) } ?? .null),
        ]).text
    }

    /// One HTTP/2 record (with `"protocol":"http2"`).
    static func line(_ record: HTTP2MockGateway.Record) -> String {
        var members: [(String, JSONValue)] = [
            ("protocol", .string("http2")),
            ("connection", .integer(record.connection)),
            ("seq", .integer(record.sequence)),
            ("token", .string(record.token)),
            ("topic", .string(record.topic)),
            ("push_type", record.pushType.map { .string($0.rawValue) } ?? .null),
            ("priority", record.priority.map { .integer($0) } ?? .null),
            ("expiration", record.expiration.map { .integer($0) } ?? .null),
            ("collapse_id", record.collapseID.map { .string($0) } ?? .null),
            ("apns_id", .string(record.apnsID)),
        ]
        switch record.authentication {
        case .certificate: members.append(("auth", .string("certificate")))
        case .token(let keyID, let teamID):
            members.append(("auth", .string("token")))
            members.append(("key_id", .string(keyID)))
            members.append(("team_id", .string(teamID)))
        }
        members.append(payload(record.payload))
        return JSONValue.object(members).text
    }

    /// `"payload"` as text when it is UTF-8, else `"payload_base64"`.
    private static func payload(_ bytes: [UInt8]) -> (String, JSONValue) {
        if let text = String(validating: bytes, as: UTF8.self) { return ("payload", .string(text)) }
        return ("payload_base64", .string(Data(bytes).base64EncodedString()))
    }
}
