package import APN
package import APNTLS
package import APNMockGateway

extension MockGateway {
    /// Options for a ``Connection`` to this gateway (its ``clientCredentials(topic:)``, the
    /// gateway port), every other option at its default. Call after ``start()``.
    package func connectionOptions(topic: String = "com.example.tests") throws(TLSError) -> Connection.Options {
        try pointed(Connection.Options(), topic: topic, port: \.gatewayPort)
    }

    /// Options for a ``Feedback`` poller reading this gateway's feedback listener, as
    /// ``connectionOptions(topic:)``.
    package func feedbackOptions(topic: String = "com.example.tests") throws(TLSError) -> Feedback.Options {
        try pointed(Feedback.Options(), topic: topic, port: \.feedbackPort)
    }

    /// `options` pointed at the listener `port` names, with new credentials for `topic`.
    private func pointed<Options: ServiceAccessOptions>(
        _ options: Options, topic: String, port: KeyPath<ClientCredentials, UInt16>
    ) throws(TLSError) -> Options {
        let credentials = try clientCredentials(topic: topic)
        var options = options
        options.point(
            at: credentials.host, port: credentials[keyPath: port], certificatePEM: credentials.certificatePEM,
            privateKeyPEM: credentials.privateKeyPEM, trustingPEM: credentials.certificateAuthorityPEM)
        return options
    }
}
