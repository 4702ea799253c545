import APNWire
import APNTestSupport
import Testing

@Suite struct StatusCodeTests {
    @Test(arguments: [
        (StatusCode.noErrorsEncountered, 0, "noErrorsEncountered"), (.processingError, 1, "processingError"),
        (.missingDeviceToken, 2, "missingDeviceToken"), (.missingTopic, 3, "missingTopic"),
        (.missingPayload, 4, "missingPayload"), (.invalidTokenSize, 5, "invalidTokenSize"),
        (.invalidTopicSize, 6, "invalidTopicSize"), (.invalidPayloadSize, 7, "invalidPayloadSize"),
        (.invalidToken, 8, "invalidToken"), (.shutdown, 10, "shutdown"), (.protocolError, 128, "protocolError"),
        (.unknown, 255, "none"), (.retryLimitExceeded, 512, "retryLimitExceeded"),
        (.moduleInitialisationFailed, 513, "moduleInitialisationFailed"),
        (.connectionRetryLimitExceeded, 514, "connectionRetryLimitExceeded"),
        (.connectionTerminated, 515, "connectionTerminated"),
    ] as [(StatusCode, UInt16, String)])
    func knownCodesHaveTheirNumberAndName(code: StatusCode, raw: UInt16, name: String) {
        #expect(code.rawValue == raw)
        #expect(code.name == name)
        #expect(code.isKnown)
        #expect(code.isAppleStatus == (raw < 256))
        #expect(StatusCode.allKnown.contains(code))
    }

    @Test func unknownCodesAreKeptNotRejected() {
        for byte in [UInt8(9), 11, 127, 200, 254] {
            let code = StatusCode(wire: byte)
            #expect(code.rawValue == UInt16(byte))
            #expect(!code.isKnown)
            #expect(code.name == nil)
            #expect(code.description == "\(byte) (unknown status)")
        }
    }

    @Test func descriptionsSayNumberAndMeaning() {
        #expect(StatusCode.invalidToken.description == "8 (invalid token)")
        #expect(StatusCode.shutdown.description == "10 (shutdown)")
        #expect(StatusCode.connectionTerminated.description == "515 (connection terminated)")
        #expect(StatusCode.allKnown == StatusCode.allKnown.sorted())
        #expect(StatusCode.allKnown.count == 16)
    }
}
