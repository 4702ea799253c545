import APN
import Testing
import APNTestSupport
import APNTestTraits

/// docs/LIBRARY.md's swift-log adapter, compiled here against a stand-in for the part of swift-log's
/// API it calls (`Logger`, `Logger.Level`, `Logger.Message`, `Logger.MetadataValue`, and
/// `log(level:_:metadata:source:file:function:line:)`, with swift-log's signatures), since
/// swift-log cannot be fetched here. The stand-in keeps what it was given.
struct Logger: Sendable {
    enum Level: String, Sendable, CaseIterable { case trace, debug, info, notice, warning, error, critical }
    enum MetadataValue: Sendable, Hashable { case string(String) }
    typealias Metadata = [String: MetadataValue]
    struct Message: ExpressibleByStringInterpolation, Sendable {
        let text: String
        init(stringLiteral value: String) { text = value }
        init(stringInterpolation: DefaultStringInterpolation) { text = String(stringInterpolation: stringInterpolation) }
    }
    struct Call: Sendable, Hashable {
        let level: Level
        let message: String
        let metadata: Metadata?
        let source: String?
    }

    let label: String
    var logLevel: Level = .info
    let calls = CallLog()

    init(label: String) { self.label = label }

    func log(
        level: Level, _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        calls.append(Call(level: level, message: message().text, metadata: metadata(), source: source()))
    }

    final class CallLog: Sendable {
        private let calls = CapturingLogHandler()  // reused as a thread-safe list
        func append(_ call: Call) {
            calls.log(
                level: APNLogLevel(rawValue: call.level.rawValue)!, message: call.message,
                metadata: (call.metadata ?? [:]).mapValues { if case .string(let text) = $0 { text } else { "" } },
                label: call.source ?? "", file: "", function: "", line: 0)
        }
        var all: [CapturingLogHandler.Entry] { calls.entries }
    }
}

// docs/LIBRARY.md: the adapter, verbatim.
/// swift-apn's log into a swift-log `Logger`: levels by name, swift-apn's label as `source`.
struct SwiftLogHandler: APNLogHandler {
    let logger: Logger
    var logLevel: APNLogLevel { APNLogLevel(rawValue: logger.logLevel.rawValue) ?? .trace }
    func log(
        level: APNLogLevel, message: String, metadata: APNLogMetadata, label: String, file: String, function: String,
        line: UInt
    ) {
        logger.log(
            level: Logger.Level(rawValue: level.rawValue) ?? .info, "\(message)", metadata: metadata.mapValues { .string($0) },
            source: label, file: file, function: function, line: line)
    }
}

@Suite("docs/LIBRARY.md: the swift-log adapter", .timeLimit(.minutes(10)), .threadPerTest)
struct ReadmeSwiftLogAdapterTests {
    @Test("a connection's log reaches the Logger with its level, message, metadata and label")
    func adapterForwards() async throws {
        let fixture = try GatewayFixture()
        var logger = Logger(label: "com.example.push")
        logger.logLevel = .debug
        // docs/LIBRARY.md: plugging it in.
        var options = Connection.Options()
        options.logHandler = SwiftLogHandler(logger: logger)
        // Not in docs/LIBRARY.md: the mock instead of Apple's gateway.
        options = fixture.options { $0.logHandler = options.logHandler }

        #expect(options.logHandler.logLevel == .debug)
        let connection = Connection(options: options)
        _ = await connection.send(note(1), to: device(1))
        await connection.shutdown()
        let connected = try #require(logger.calls.all.first { $0.message == "socket connected" })
        #expect(connected == .init(level: .debug, message: "socket connected", metadata: ["open_sockets": "1"], label: "swift-apn.connection"))
    }
}
