import APNAdmin
import APNWire
import Foundation
import APNMockGateway

// `apn mock-gateway`'s run, step by step: open the record file, start the gateways, start
// the record and refusal writers, print the start line, then (after the stop signal) stop
// everything and print the summary.
extension MockGatewayCommand {
    /// The gateways one run serves.
    struct Gateways {
        let binary: MockGateway
        /// With `--http2`.
        let http2: HTTP2MockGateway?
    }

    /// What writes beside the gateways while they run.
    struct Writers {
        /// The record file (`--record`), open for appending.
        let recordDescriptor: Int32?
        /// Each gateway's record writer, with `--record`.
        let binaryRecorder: RecordWriter?
        let http2Recorder: RecordWriter?
        /// The HTTP/2 gateway's broadcasts, with `--record` (`"kind":"broadcast"` lines).
        let broadcastRecorder: RecordWriter?
        let refusalLog: RefusalLog

        var recorders: [RecordWriter] { [binaryRecorder, http2Recorder, broadcastRecorder].compactMap { $0 } }
    }

    /// Opens `--record`'s file for appending (nil without it).
    static func openRecordFile(_ path: String?) throws -> Int32? {
        guard let path else { return nil }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, errno: errno) }
        return descriptor
    }

    /// Starts the binary gateway, its feedback queued, and the HTTP/2 one if asked for.
    /// Records are kept for a record file's writer only (`recording`): without one, none.
    static func startGateways(_ options: Options, recording: Bool) throws -> Gateways {
        var options = options
        let retention = recording ? RecordWriter.retention : RecordRetention(limit: 0, whenFull: .discardOldest)
        options.configuration.recordRetention = retention
        options.http2?.recordRetention = retention
        let gateway = try MockGateway(configuration: options.configuration)
        for tuple in options.feedback {
            try gateway.queueFeedback(time: tuple.time, token: tuple.token)
        }
        try gateway.start()
        let http2 = try options.http2.map { configuration in
            let http2 = try HTTP2MockGateway(configuration: configuration)
            try http2.start()
            return http2
        }
        return Gateways(binary: gateway, http2: http2)
    }

    /// Starts the refusal log (summed over both gateways: one line per kind, whichever
    /// listener refused), then a record writer per gateway when there is a record file.
    static func startWriters(for gateways: Gateways, recordDescriptor: Int32?) -> Writers {
        let (gateway, http2) = (gateways.binary, gateways.http2)
        let refusalLog = RefusalLog { [gateway, http2] in
            var totals = gateway.refusals
            if let http2 { totals.merge(http2.summary.refusals, uniquingKeysWith: +) }
            return totals
        }
        refusalLog.start()
        let writers = Writers(
            recordDescriptor: recordDescriptor,
            binaryRecorder: recordDescriptor.map { RecordWriter(gateway, descriptor: $0, threadName: RecordWriter.binaryThreadName) },
            http2Recorder: recordDescriptor.flatMap { descriptor in
                http2.map { RecordWriter($0, descriptor: descriptor, threadName: RecordWriter.http2ThreadName) }
            },
            broadcastRecorder: recordDescriptor.flatMap { descriptor in
                http2.map {
                    RecordWriter(BroadcastRecords(gateway: $0), descriptor: descriptor, threadName: RecordWriter.broadcastThreadName)
                }
            },
            refusalLog: refusalLog)
        for recorder in writers.recorders { recorder.start() }
        return writers
    }

    /// Starts `--admin`'s listener once the gateways listen (nil without the flag); when it
    /// cannot bind, stops the gateways before the error ends the run.
    static func startAdmin(
        _ address: (host: String, port: UInt16)?, gateways: Gateways
    ) throws -> (endpoints: MockGatewayAdmin, server: AdminServer)? {
        let endpoints = MockGatewayAdmin(gateways: gateways)
        do {
            return try AdminServer.start(at: address, routes: endpoints.routes).map { (endpoints, $0) }
        } catch {
            gateways.binary.stop()
            _ = gateways.http2?.stop()
            throw error
        }
    }

    /// Prints the start line: where each listener is (the admin listener's with `--admin`),
    /// and the certificate directory.
    static func printStartLine(_ gateways: Gateways, host: String, certificates directory: String, admin: String?) {
        let host = host.contains(":") ? "[\(host)]" : host
        var started: [(String, JSONValue)] = [
            ("gateway", .string("\(host):\(gateways.binary.gatewayPort)")),
            ("feedback", .string("\(host):\(gateways.binary.feedbackPort)")),
        ]
        if let http2 = gateways.http2 { started.append(("http2", .string("\(host):\(http2.port)"))) }
        started.append(("certs", .string(directory)))
        if let admin { started.append(("admin", .string(admin))) }
        LineWriter.stdout(.object(started))
    }

    /// Stops reading first (every connection checks before each read), then writes what was
    /// accepted up to that point, then prints the summary of exactly that.
    static func stopAndReport(_ gateways: Gateways, _ writers: Writers) {
        for recorder in writers.recorders { recorder.requestStop() }
        gateways.binary.stop()
        let http2Summary = gateways.http2?.stop()
        let accepted = gateways.binary.recordCount
        writers.binaryRecorder?.finish(upTo: accepted)
        if let http2Summary {
            writers.http2Recorder?.finish(upTo: http2Summary.accepted)
            writers.broadcastRecorder?.finish(upTo: http2Summary.broadcasts)
        }
        if let recordDescriptor = writers.recordDescriptor { close(recordDescriptor) }
        writers.refusalLog.finish()
        printSummary(gateways.binary, accepted: accepted, http2: http2Summary)
    }

    /// Prints the summary line: the binary gateway's counts (`accepted` is the record file's
    /// line count), and the HTTP/2 gateway's under "http2".
    private static func printSummary(_ gateway: MockGateway, accepted: Int, http2: HTTP2MockGateway.Summary?) {
        var byStatus: [UInt16: Int] = [:]
        for rejection in gateway.rejections {
            byStatus[rejection.status.rawValue, default: 0] += 1
        }
        LineWriter.stdout(
            .object([
                ("connections", .integer(gateway.connectionCount)),
                ("accepted", .integer(accepted)),
                ("rejected", .object(byStatus.keys.sorted().map { (String($0), .integer(byStatus[$0]!)) })),
                ("markers", .integer(gateway.markerCount)),
                ("feedback_connections", .integer(gateway.feedbackConnectionCount)),
                ("handshake_failures", .integer(gateway.handshakeFailureCount)),
                ("refused_connections", .integer(gateway.refusedConnectionCount)),
                ("thread_start_failures", .integer(gateway.threadStartFailureCount)),
                ("idle_timeouts", .integer(gateway.idleTimeoutCount)),
            ] + (http2.map { [("http2", HTTP2MockFlags.summary($0))] } ?? [])))
    }
}
