// swift-tools-version:6.0
import PackageDescription

// One set of Swift settings for every target (STYLE.md: apply them in one place).
// Swift 6 language mode gives complete strict-concurrency checking; the upcoming
// features below are the ones we want before they become the default.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "swift-apn",
    // Linux only (Debian 12 and its C libraries): the sources import Glibc, so no Apple
    // platform is declared.
    products: [
        .library(name: "APN", targets: ["APN"]),
        .library(name: "APNWire", targets: ["APNWire"]),
        .library(name: "APNFeedbackStore", targets: ["APNFeedbackStore"]),
        .library(name: "APNBridge", targets: ["APNBridge"]),
        .library(name: "APNFeedbackService", targets: ["APNFeedbackService"]),
        // The TLS and credential types the products hand out (APNTLS is no product).
        .library(name: "APNCredentials", targets: ["APNCredentials"]),
        // The gateway, feedback and HTTP/2 mocks, for a dependent package's tests (#27).
        .library(name: "APNMockGateway", targets: ["APNMockGateway"]),
        .executable(name: "apn", targets: ["apn"]),
    ],
    targets: [
        // OpenSSL 3 from Debian's libssl-dev. Only the TLS transport will import it.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // SQLite 3 from Debian's libsqlite3-dev, for the feedback token store only.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libpq from Debian's libpq-dev, for the token store's PostgreSQL backend only.
        .systemLibrary(
            name: "CPostgreSQL",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // nghttp2 from Debian's libnghttp2-dev, for the HTTP/2 session layer only.
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        // HTTP/2 framing without I/O: nghttp2 sessions for client and server, bytes in,
        // events and bytes out. No product: APN and APNMockGateway use it.
        .target(name: "APNHTTP2", dependencies: ["CNGHTTP2", "APNSupport"]),
        .testTarget(name: "APNHTTP2Tests", dependencies: ["APNHTTP2", "APNTestSupport", "APNTestTraits"]),
        // The durable token registry a feedback polling service applies feedback to.
        .target(name: "APNFeedbackStore", dependencies: ["APNCore", "APNSupport", "CSQLite", "CPostgreSQL"]),
        .testTarget(
            name: "APNFeedbackStoreTests",
            dependencies: ["APNFeedbackStore", "APN", "APNTLS", "CPostgreSQL", "CSQLite", "APNMockGateway", "APNTestSupport", "APNTestTraits"]),
        // The wire protocol: encoders and streaming decoders, no I/O; and the HTTP/2 API's
        // vocabulary (`ProviderReason`, `PushType`), so that the mocks and the bridge need no
        // client module for it.
        .target(name: "APNWire"),
        // C-free support every layer shares, one of each: locks, wake signals, hand-offs,
        // thread starting and naming, duration conversions, JSON string escaping, UTF-8
        // checks. No product: `package` access only.
        .target(name: "APNSupport"),
        .testTarget(name: "APNSupportTests", dependencies: ["APNSupport", "APNTestSupport", "APNTestTraits"]),
        // The bridge (issue #24): binary clients in, Apple's HTTP/2 API out. Its pure decision
        // state (refusal order, the read window, the resend record) and its I/O driver,
        // `Bridge`, on the gateway server core.
        .target(
            name: "APNBridge",
            dependencies: ["APNSupport", "APNCore", "APN", "APNTLS", "APNWire", "APNFeedbackStore", "APNGatewayServer", "APNCredentials"]),
        // The feedback service as a library: its schedule pure, the lock or lease, the store's
        // check and the recovery file inside; `apn feedback-service` parses and prints.
        .target(name: "APNFeedbackService", dependencies: ["APNSupport", "APN", "APNFeedbackStore"]),
        .testTarget(
            name: "APNFeedbackServiceTests",
            dependencies: ["APNFeedbackService", "APN", "APNFeedbackStore", "APNSupport", "APNMockGateway", "APNTestSupport", "APNTestTraits"]),
        // Re-exports of APNTLS's credential types, the one way every product hands them out.
        .target(name: "APNCredentials", dependencies: ["APNTLS"]),
        .testTarget(
            name: "APNBridgeTests",
            dependencies: ["APNBridge", "APNCore", "APN", "APNTLS", "APNWire", "APNFeedbackStore", "CSQLite", "APNTestSupport", "APNTestTraits"]),
        // The bridge end to end: a binary `Connection` → `Bridge` → `HTTP2MockGateway`.
        .testTarget(
            name: "APNBridgeIOTests",
            dependencies: ["APNBridge", "APN", "APNTLS", "APNWire", "APNGatewayServer", "APNMockGateway", "APNTestSupport", "APNTestTraits", "CSQLite"]),
        // The public library in node-apn 1.x's vocabulary.
        .target(name: "APN", dependencies: ["APNCore", "APNWire", "APNSupport", "APNTLS", "APNHTTP2"]),
        // The models under the transports (#43): `Device`, `Notification` and its payload
        // compiler, JSON, `APNError`, the logging protocol. No I/O; `APN` re-exports it.
        .target(name: "APNCore", dependencies: ["APNWire", "APNSupport"]),
        // Release-mode benchmarks: `swift run -c release apn-bench SCENARIO`. Not a product:
        // nothing depends on it, and it links no test framework.
        .executableTarget(
            name: "apn-bench",
            dependencies: ["APNSupport", "APN", "APNBridge", "APNFeedbackStore", "APNHTTP2", "APNWire", "APNTLS", "APNMockGateway", "APNTestSupport"],
            path: "Benchmarks",
            exclude: ["README.md"]
        ),
        // Helpers shared by the test targets: seeded randomness, chunked feeding, hex, raw TLS and HTTP/2 clients, a capturing log handler, the PostgreSQL test server's admin.
        // Swift Testing's traits the test targets share: a thread per test case, child
        // processes killed when their case ends.
        .target(name: "APNTestTraits", dependencies: ["APNTestSupport"], path: "Tests/APNTestTraits"),
        .target(name: "APNTestSupport", dependencies: ["APN", "APNFeedbackStore", "CSQLite", "APNHTTP2", "APNSupport", "APNTLS", "APNWire", "CPostgreSQL", "APNMockGateway"], path: "Tests/APNTestSupport"),
        .testTarget(name: "APNWireTests", dependencies: ["APNWire", "APNTestSupport", "APNTestTraits"]),
        // Fixtures/ holds data files the tests find through #filePath (node-apn's golden payloads).
        .testTarget(
            name: "APNTests", dependencies: ["APNSupport", "APN", "APNHTTP2", "APNWire", "APNTLS", "APNMockGateway", "APNTestSupport", "APNTestTraits"],
            exclude: ["Fixtures"]),
        .testTarget(name: "COpenSSLTests", dependencies: ["COpenSSL"]),
        .target(name: "APNTLS", dependencies: ["APNSupport", "COpenSSL"]),
        .testTarget(name: "APNTLSTests", dependencies: ["APNSupport", "APNTLS", "APNTestSupport", "APNTestTraits"]),
        // The binary gateway + feedback server core (issue #24): listeners, threads, TLS,
        // reading, error responses, close rules, caps and idle timeouts, written once. The
        // mock plugs in scripted decisions and a record, the bridge forwarding. No product.
        .target(name: "APNGatewayServer", dependencies: ["APNSupport", "APNTLS", "APNWire"]),
        .testTarget(name: "APNGatewayServerTests", dependencies: ["APNSupport", "APNGatewayServer", "APNTLS", "APNWire", "APNTestSupport", "APNTestTraits"]),
        // The faithful, scriptable mocks tests run against: the binary gateway and feedback
        // server (`MockGateway`, on the server core) and the HTTP/2 provider API
        // (`HTTP2MockGateway`). In the top-level `MockGateway/` folder the design card names
        // (Shared/, Binary/, HTTP2/), wired in with `path:`; no client module.
        .target(
            name: "APNMockGateway", dependencies: ["APNHTTP2", "APNWire", "APNSupport", "APNTLS", "APNGatewayServer", "APNCredentials"],
            path: "MockGateway",
            exclude: ["README.md"]),
        .testTarget(
            name: "APNMockGatewayTests",
            dependencies: ["APNSupport", "APNMockGateway", "APNGatewayServer", "APN", "APNHTTP2", "APNTLS", "APNWire", "APNTestSupport", "APNTestTraits"]),
        // The admin listener of the long-running commands (#42): plain HTTP/1.1, `/metrics` in
        // Prometheus' text format, `/healthz`, `/readyz`. No product: the CLI uses it.
        .target(name: "APNAdmin", dependencies: ["APNSupport"]),
        .testTarget(name: "APNAdminTests", dependencies: ["APNAdmin", "APNTestSupport", "APNTestTraits"]),
        // `apn certs`, `apn mock-gateway`, `apn feedback-service`, `apn tokens` and the rest.
        .executableTarget(
            name: "apn",
            dependencies: ["APNSupport", "APN", "APNAdmin", "APNBridge", "APNFeedbackService", "APNFeedbackStore", "APNMockGateway", "APNTLS", "APNWire"]),
        // libFuzzer targets (`scripts/fuzz`): each replays the files it is given unless built
        // with `-DFUZZING --sanitize=fuzzer`; Fuzz/README.md tells more.
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "FuzzGatewayDecoder", dependencies: ["APNWire", "FuzzSupport"], path: "Fuzz/FuzzGatewayDecoder", exclude: ["corpus"]),
        .executableTarget(name: "FuzzErrorResponseDecoder", dependencies: ["APNWire", "FuzzSupport"], path: "Fuzz/FuzzErrorResponseDecoder", exclude: ["corpus"]),
        .executableTarget(name: "FuzzFeedbackDecoder", dependencies: ["APNWire", "FuzzSupport"], path: "Fuzz/FuzzFeedbackDecoder", exclude: ["corpus"]),
        .executableTarget(name: "FuzzCredentials", dependencies: ["APNTLS", "FuzzSupport"], path: "Fuzz/FuzzCredentials", exclude: ["corpus"]),
        .executableTarget(name: "FuzzJSON", dependencies: ["APN", "APNTLS", "FuzzSupport"], path: "Fuzz/FuzzJSON", exclude: ["corpus"]),
        .executableTarget(name: "FuzzHTTP2", dependencies: ["APNHTTP2", "FuzzSupport"], path: "Fuzz/FuzzHTTP2", exclude: ["corpus"]),
        // README's Provider error-handling example as a top-level main.swift, so debug and
        // release builds compile it (a release build once crashed the compiler on such code).
        .executableTarget(name: "provider-errors-example", dependencies: ["APN"], path: "Examples/ProviderErrors"),
        // Depends on `apn` and the example so that `swift test` alone builds the executables its tests run.
        .testTarget(
            name: "apnTests",
            dependencies: [
                "APNSupport", "apn", "provider-errors-example", "APN", "APNFeedbackStore", "APNHTTP2", "APNTLS", "APNWire",
                "CSQLite", "APNTestSupport", "APNTestTraits", "APNAdmin", "APNFeedbackService",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
