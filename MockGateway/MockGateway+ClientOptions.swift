public import APN
public import APNTLS

extension MockGateway {
    /// Options for a ``Connection`` to this gateway, as a test needs them: its host and
    /// ``gatewayPort``, a client certificate its ``certificateAuthority`` issues now for
    /// `topic` (both push environments, valid a day), and that CA trusted for the server.
    /// Every other option keeps its default; set what the test needs. Call after
    /// ``start()``: the port is the one bound.
    public func connectionOptions(topic: String = "com.example.tests") throws(TLSError) -> Connection.Options {
        var options = Connection.Options()
        options.access = try clientAccess(options.access, port: gatewayPort, topic: topic)
        return options
    }

    /// Options for a ``Feedback`` poller reading this gateway's feedback listener
    /// (``feedbackPort``), with a client certificate as ``connectionOptions(topic:)``.
    public func feedbackOptions(topic: String = "com.example.tests") throws(TLSError) -> Feedback.Options {
        var options = Feedback.Options()
        options.access = try clientAccess(options.access, port: feedbackPort, topic: topic)
        return options
    }

    /// `access` pointed at this gateway's `port`, with a new client certificate for `topic`.
    private func clientAccess(_ access: ServiceAccess, port: UInt16, topic: String) throws(TLSError) -> ServiceAccess {
        let client = try certificateAuthority.issueClientCertificate(topic: topic)
        var access = access
        access.address = configuration.host
        access.port = port
        access.cert = .data(Array(try client.certificate.pem().utf8))
        access.key = .data(Array(try client.privateKey.pem().utf8))
        access.ca = [.data(Array(try certificateAuthority.certificate.pem().utf8))]
        return access
    }
}
