public import Foundation

/// What became of one notification sent through a ``Provider``: Apple's answer, or the
/// failure that kept it from answering. ``Provider/send(_:to:)-(_,[Device])`` returns one
/// per device, in the order given.
public struct ProviderResponse: Sendable, CustomStringConvertible {
    /// The device the notification was for.
    public let device: Device
    /// `nil` when the notification was delivered (HTTP 200); otherwise why not.
    public let error: ProviderError?
    /// The HTTP status Apple answered: 200 on success; `nil` when no answer came.
    public let status: Int?
    /// The `apns-id` Apple answered (the request's, or the one Apple assigned): a UUID, as
    /// ``Notification/apnsID`` is, so the two compare; `nil` when the answer had none.
    public var apnsID: UUID? { apnsIDText.uuid }
    /// ``apnsID`` as received: parsed only when asked for.
    private let apnsIDText: FieldText
    /// The `apns-unique-id` Apple answers in the development environment, to look the
    /// notification up in its delivery log.
    public var uniqueID: String? { uniqueIDText.string }
    /// ``uniqueID`` as received: a string only when asked for.
    private let uniqueIDText: FieldText
    /// How many times the request was sent (retries after 429 or 5xx, a refused stream or
    /// an expired provider token count).
    public let attempts: Int
    /// For an exchange (a broadcast, a channel request; ``ProviderRequest/Template/isExchange``):
    /// what its answer carried besides, empty when no answer came. `nil` for a device's.
    let exchange: ProviderExchangeAnswer?

    /// Creates a response; the library makes them, tests may too.
    public init(
        device: Device, error: ProviderError?, status: Int?, apnsID: UUID?, uniqueID: String?, attempts: Int
    ) {
        self.device = device
        self.error = error
        self.status = status
        apnsIDText = apnsID.map(FieldText.init(uuid:)) ?? .absent
        uniqueIDText = uniqueID.map(FieldText.init) ?? .absent
        self.attempts = attempts
        exchange = nil
    }

    /// The response to `request` with Apple's `answer`.
    init(_ request: borrowing ProviderRequest, error: ProviderError?, answer: borrowing ProviderAnswer, attempts: Int) {
        device = request.device
        self.error = error
        status = answer.status
        apnsIDText = answer.apnsIDText
        uniqueIDText = answer.uniqueID
        self.attempts = attempts
        exchange = request.template.isExchange ? (answer.exchange ?? ProviderExchangeAnswer.empty) : nil
    }

    /// The response to `request`: `answer`'s fields, when one came.
    init(_ request: borrowing ProviderRequest, error: ProviderError?, answer: ProviderAnswer?, attempts: Int) {
        device = request.device
        self.error = error
        status = answer?.status
        apnsIDText = answer?.apnsIDText ?? .absent
        uniqueIDText = answer?.uniqueID ?? .absent
        self.attempts = attempts
        exchange = request.template.isExchange ? (answer?.exchange ?? ProviderExchangeAnswer.empty) : nil
    }

    /// Whether Apple accepted the notification (HTTP 200).
    public var isSuccess: Bool { error == nil && status == 200 }
    /// Apple's reason for refusing it, typed.
    public var reason: ProviderReason? { error?.reason }
    /// For 410 answers: when Apple last knew the token to be valid.
    public var timestamp: Date? { error?.timestamp }
    /// Whether Apple may have received it although no answer says so
    /// (``ProviderError/mayHaveBeenDelivered``).
    public var mayHaveBeenDelivered: Bool { error?.mayHaveBeenDelivered ?? false }

    /// `device: 200 apns-id` or `device: error`.
    public var description: String {
        if let error { return "\(device): \(error)" }
        return "\(device): \(status.map(String.init) ?? "-") \(apnsID.map(\.apnsText) ?? "")"
    }
}
