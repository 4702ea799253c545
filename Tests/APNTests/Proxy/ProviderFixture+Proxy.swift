import APN
import Foundation

extension ProviderFixture {
    /// `note` sent to `device` with token authentication through `proxy`, with one connect
    /// attempt (a refusal is told at once): its response.
    func sendOnce(
        _ note: PushNotification = PushNotification(), to device: Device = ProviderFixture.device(1),
        through proxy: HTTPProxy, configure: (inout Provider.Options) -> Void = { _ in }
    ) async throws -> ProviderResponse {
        var options = try tokenOptions()
        options.proxy = proxy
        options.connectionRetryLimit = 1
        configure(&options)
        let provider = Provider(options: options)
        let response = await provider.send(note, to: [device])[0]
        await provider.shutdown()
        return response
    }

    /// A new empty folder under the temporary directory, for a proxy's configuration.
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apn-proxy-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
