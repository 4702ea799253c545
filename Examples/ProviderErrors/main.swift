// docs/LIBRARY.md's "Handling errors" example for Provider, compiled as a top-level main.swift in
// debug (`swift build`) and release (`swift build -c release`, .ci/run): Swift 6.3.1's
// optimizer once crashed on code of this shape. `ReadmeProviderErrorsTests` (apnTests) runs
// it against `apn mock-gateway --http2` and checks that the block between the markers is
// docs/LIBRARY.md's, character for character.
import APN
import Foundation

// Not in docs/LIBRARY.md: the test's HTTP/2 mock instead of Apple's sandbox, and its key.
let environment = ProcessInfo.processInfo.environment
var options = Provider.Options()
options.authentication = .token(
    keyID: environment["EXAMPLE_KEY_ID"] ?? "ABC123DEFG", teamID: environment["EXAMPLE_TEAM_ID"] ?? "DEF123GHIJ",
    key: .file(environment["EXAMPLE_P8"] ?? "AuthKey_ABC123DEFG.p8"))
options.topic = "com.example.app"
if let address = environment["EXAMPLE_ADDRESS"], let colon = address.lastIndex(of: ":"),
    let port = UInt16(address[address.index(after: colon)...])
{
    options.address = String(address[..<colon])
    options.port = port
}
if let ca = environment["EXAMPLE_CA"] { options.ca = [.file(ca)] }
let provider = Provider(options: options)
let note = PushNotification().setAlertText("Hello")

for token in CommandLine.arguments.dropFirst() {
    // docs/LIBRARY.md: handling errors (begin)
    do {
        let device = try Device(token)                            // APNError: not a device token
        let response = try await provider.send(note, to: device)  // ProviderError: not delivered
        print("delivered", response.apnsID?.uuidString ?? "")
    } catch let error as ProviderError where error.reason == .badDeviceToken || error.reason == .unregistered {
        print("stop sending to", token)                           // Apple refused the token itself
    } catch let error as ProviderError where error.code == .timedOut || error.code == .connectionFailed {
        print("maybe delivered, not sent again:", error.code)
    } catch let error as ProviderError {
        print("not delivered:", error.status ?? 0, error.reason?.rawValue ?? error.message)
    } catch {
        print("not a device token:", token)
    }
    // docs/LIBRARY.md: handling errors (end)
}
await provider.shutdown()
