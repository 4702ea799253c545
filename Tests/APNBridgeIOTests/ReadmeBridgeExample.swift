import APN
import APNBridge
import Foundation

// docs/BRIDGE.md, "Embedding the bridge": compiled here, against the products' public API, so the
// snippet cannot drift (ReadmeSnippetTests finds it verbatim). Not run: it reads the
// operator's certificate files and reaches Apple; BridgeEndToEndTests run the same calls on
// loopback.
func readmeEmbeddingTheBridge() throws {
    let tenants = try BridgeTenants([
        BridgeTenant(
            name: "shop", matches: [.userID("com.example.shop")], topic: "com.example.shop",
            upstream: .token(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", p8: "AuthKey_ABC123DEFG.p8"))
    ])
    var upstream = Provider.Options()                  // Apple's sandbox API
    upstream.production = true                         // … or its production API
    var configuration = Bridge.Configuration(
        serverCredentials: try TLSCredentials(certificateFile: "bridge.pem", keyFile: "bridge-key.pem"),
        clientCertificateAuthorities: try TLSCertificate.certificates(
            fromPEM: Array(Data(contentsOf: URL(fileURLWithPath: "clients-ca.pem")))),
        tenants: tenants, upstream: upstream)
    configuration.gatewayPort = 2195                   // 0: the system chooses
    configuration.feedbackPort = 2196
    configuration.storePath = "tokens.sqlite"          // 410s kept for the feedback port
    let bridge = try Bridge(configuration: configuration)
    try bridge.start()
    // … until the service is asked to stop; then the answers due get up to 5 s:
    let summary = bridge.stop(grace: .seconds(5))
    print(summary.counts.delivered, summary.feedbackStored)
}
