import APN
import APNWire
import Testing
import APNTestSupport
import APNTestTraits

@Suite("validate(for:) and payload limits", .threadPerTest)
struct NotificationValidationTests {
    /// A notification whose utf8 payload is exactly `size` bytes: `{"aps":{"alert":"xxx…"}}`.
    static func note(size: Int, encoding: PayloadEncoding = .utf8) -> Notification {
        let overhead = 20
        switch encoding {
        case .utf8:
            return Notification().setAlertText(String(repeating: "x", count: size - overhead))
        case .ucs2:
            precondition(size % 2 == 0)
            return Notification().setEncoding(.ucs2)
                .setAlertText(String(repeating: "x", count: size / 2 - overhead))
        }
    }

    @Test("limits per command")
    func limits() {
        #expect(Notification.payloadLimit(for: .simple) == 256)
        #expect(Notification.payloadLimit(for: .enhanced) == 256)
        #expect(Notification.payloadLimit(for: .frame) == 2048)
        #expect(Notification.payloadLimit(for: .frame, voip: true) == 4096)
        #expect(Notification.payloadLimit(for: .enhanced, voip: true) == 256)
        #expect(Notification.payloadLimit(for: .simple, voip: true) == 256)
    }

    @Test("at the limit passes, one byte over fails with status 7, size and limit", arguments: [
        (Command.simple, false, 256),
        (Command.enhanced, false, 256),
        (Command.frame, false, 2048),
        (Command.frame, true, 4096),
    ])
    func boundary(_ command: Command, _ voip: Bool, _ limit: Int) throws {
        let fits = Self.note(size: limit)
        #expect(fits.length() == limit)
        try fits.validate(for: command, voip: voip)

        let over = Self.note(size: limit + 1)
        #expect(over.length() == limit + 1)
        do {
            try over.validate(for: command, voip: voip)
            Issue.record("\(limit + 1) bytes passed \(command)")
        } catch {
            #expect(error.code == .payloadTooLarge)
            #expect(error.status == .invalidPayloadSize)
            #expect(error.status?.rawValue == 7)
            #expect(error.size == limit + 1)
            #expect(error.limit == limit)
            #expect(error.message.contains("\(limit + 1) bytes"))
            #expect(error.message.contains("\(limit)-byte limit"))
        }
    }

    @Test("4096 bytes fail command 2 without voip")
    func voipOnly() {
        #expect(throws: APNError.self) { try Self.note(size: 4096).validate(for: .frame) }
        #expect(throws: APNError.self) { try Self.note(size: 2049).validate(for: .frame) }
    }

    @Test("ucs2 counts two bytes per code unit")
    func ucs2() throws {
        let fits = Self.note(size: 256, encoding: .ucs2)
        #expect(fits.length() == 256)
        try fits.validate(for: .enhanced)
        // The same text is only 128 bytes in utf8.
        #expect(fits.setEncoding(.utf8).length() == 128)

        let over = Self.note(size: 258, encoding: .ucs2)
        #expect {
            try over.validate(for: .enhanced)
        } throws: { error in
            let error = error as? APNError
            return error?.size == 258 && error?.limit == 256 && error?.message.contains("ucs2") == true
        }
        try over.validate(for: .frame)
    }

    @Test("the README's ucs2 warning: about 127 characters fit 256 bytes")
    func readmeWarning() throws {
        // With an empty aps around it, 128 − 20 = 108 characters of alert fit.
        try Self.note(size: 256, encoding: .ucs2).validate(for: .enhanced)
        #expect(try Notification().setEncoding(.ucs2).setCustom("k", .string(String(repeating: "a", count: 120))).length() == 256)
    }
}
