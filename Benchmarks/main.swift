// apn-bench: release-mode benchmarks. `swift run -c release apn-bench SCENARIO [options]`.
// Figures are printed, never asserted: tests do not time anything.

import Foundation

let scenarios: [(name: String, summary: String, run: @Sendable ([String]) throws -> Void)] = [
    ("encode", "command 2 frames of a precompiled 100-byte payload to distinct tokens; then compiling a payload per notification", EncodeBenchmark.run),
    ("session", "notifications/s through the gateway session state machine, one rejection per 1,000; memory per cached entry", SessionBenchmark.run),
    ("tls", "bytes/s and frames/s over one mutual-TLS loopback connection, 150-byte frames in 16 KB writes", TLSBenchmark.run),
    ("mock", "notifications/s an in-process MockGateway decodes and records from one TLS client, 161-byte frames in 16 KB writes", MockGatewayBenchmark.run),
    ("h2mock", "requests/s an in-process HTTP2MockGateway answers and records on one TLS connection with 1,000 streams in flight", HTTP2MockBenchmark.run),
    ("send", "Connection → MockGateway over TLS: precompiled, rolling confirmation, compiled payloads, 1 rejection per 10,000, memory queued and in flight", SendBenchmark.run),
    ("feedback", "tuples/s one Feedback.read() decodes from an in-process MockGateway over TLS", FeedbackBenchmark.run),
    ("feedback-store", "the token store on SQLite (and PostgreSQL with --store URL): bulk registration, feedback applied in batches, active tokens read (APNFeedbackStore)", FeedbackStoreBenchmark.run),
    ("h2session", "HTTP/2 request/response pairs/s through client and server nghttp2 sessions in memory, 1,000 streams in flight", H2SessionBenchmark.run),
    ("http2", "Provider → HTTP2MockGateway over TLS: notifications/s with 1,000 streams on one connection, memory per request", HTTP2Benchmark.run),
    ("bridge", "Connection (fastMode) → Bridge → HTTP2MockGateway over TLS, beside Provider → HTTP2MockGateway directly; 1 refusal per 10,000; memory in flight", BridgeBenchmark.run),
    ("chaos", "1M through Connection into a remote-like MockGateway (latency, rejections, silent closes, resets), every outcome checked", ChaosBenchmark.run),
]

@MainActor func usage() -> String {
    var text = "usage: apn-bench SCENARIO [--operations N] [--rounds N] [--only MEASUREMENT]\n"
        + "       apn-bench h2session [--in-flight N]\n"
        + "       apn-bench http2 [--streams N] [--connections N] [--auth token|certificate] [--only throughput|memory]\n"
        + "       apn-bench http2 --port N --certs DIR [--payload FILE] [--streams N]   (the client alone, to 127.0.0.1:N)\n"
        + "       apn-bench chaos [--latency-ms MS] [--connections N] [--confirm N] [--report 1] [--settle-ms MS]\n"
        + "\nscenarios:\n"
    for scenario in scenarios {
        text += "  \(scenario.name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(scenario.summary)\n"
    }
    return text
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, name != "--help", name != "-h" else {
    print(usage(), terminator: "")
    exit(arguments.isEmpty ? 2 : 0)
}
guard let scenario = scenarios.first(where: { $0.name == name }) else {
    FileHandle.standardError.write(Data("apn-bench: unknown scenario '\(name)'\n\n\(usage())".utf8))
    exit(2)
}
do {
    try scenario.run(Array(arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("apn-bench: \(error)\n".utf8))
    exit(2)
}
