import APNBridge
import APNWire
import Testing

/// Apple's HTTP/2 refusal reasons in the binary protocol's statuses.
@Suite struct BridgeAnswerTests {
    @Test(arguments: [
        ("BadDeviceToken", StatusCode.invalidToken),
        ("DeviceTokenNotForTopic", .invalidToken),
        ("MissingDeviceToken", .invalidToken),
        ("PayloadTooLarge", .invalidPayloadSize),
        ("PayloadEmpty", .missingPayload),
        ("BadCollapseId", .processingError),
        ("BadExpirationDate", .processingError),
        ("BadMessageId", .processingError),
        ("BadPriority", .processingError),
        ("BadTopic", .processingError),
        ("DuplicateHeaders", .processingError),
        ("IdleTimeout", .processingError),
        ("InvalidPushType", .processingError),
        ("MissingTopic", .processingError),
        ("TopicDisallowed", .processingError),
        ("BadPath", .processingError),
        ("MethodNotAllowed", .processingError),
        ("TooManyRequests", .processingError),
        ("InternalServerError", .processingError),
        ("ServiceUnavailable", .processingError),
        ("Shutdown", .processingError),
        ("SomeReasonAppleAddsLater", .processingError),
        ("", .processingError),
        ("baddevicetoken", .processingError),
    ] as [(String, StatusCode)])
    func statusForReason(reason: String, status: StatusCode) {
        #expect(BridgeAnswer.status(forReason: reason) == status)
    }
}
