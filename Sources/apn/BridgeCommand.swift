import APNAdmin
import APN
import APNBridge
import APNFeedbackStore
import APNSupport
import Foundation
import Synchronization

/// `apn bridge …`: runs a ``Bridge`` until SIGINT or SIGTERM.
enum BridgeCommand: Subcommand {
    static let name = "bridge"
    static let summary = "a binary gateway and feedback service in front of Apple's HTTP/2 API"
    static let about = BridgeFlags.about
    static let flagGroups = BridgeFlags.groups
    static let epilogue = BridgeFlags.epilogue

    static let reloadsOnHangup = true

    static func run(_ flags: Flags) throws -> Int32 {
        var options = try BridgeFlags.parse(flags)
        if options.flags.has("--check-config") {
            LineWriter.stdout(BridgeConfigShow.line(options))
            return 0
        }
        // Signals first, so one that arrives while starting is not fatal.
        let stopSignals = StopSignals()
        // A bridge that lost its store's lock can forward nothing more and must not tell its
        // clients anything the store does not hold: it ends as a crash would (#41).
        let lockLost = Atomic<Bool>(false)
        options.configuration.log = { event in
            LineWriter.stderr(BridgeLog.line(event).text)
            if case .storeLockLost = event, !lockLost.exchange(true, ordering: .relaxed) { stopSignals.request() }
        }
        let hangups = HangupSignals()
        let bridge = try Bridge(configuration: options.configuration)
        try bridge.start()
        let certificates = BridgeAdmin.certificates(of: options.configuration)
        let endpoints = BridgeAdmin(bridge: bridge, certificates: certificates)
        var admin: AdminServer?
        if let (adminHost, adminPort) = options.admin {
            do {
                admin = try AdminServer(host: adminHost, port: adminPort) { endpoints.respond($0) }
            } catch {
                bridge.stop(grace: .zero)
                throw error
            }
            admin?.start()
        }
        let configuration = options.configuration
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        var started: [(String, JSONValue)] = [
            ("gateway", .string("\(host):\(bridge.gatewayPort)")),
            ("feedback", .string("\(host):\(bridge.feedbackPort)")),
        ]
        if let admin { started.append(("admin", .string("\(admin.host):\(admin.port)"))) }
        LineWriter.stdout(.object(started))
        let upstream = configuration.upstream
        LineWriter.stderr(
            BridgeLog.started(
                upstream: "\(upstream.host):\(upstream.port)", tenants: configuration.tenants.all.map(\.name),
                store: configuration.storePath.map(TokenStore.redacted)
            ).text)

        // A certificate that expires within 30 days is said at start, then daily (#42).
        let expiry = CertificateExpiryWatch {
            endpoints.certificates.map { CertificateExpiry(name: $0.name, notAfter: $0.notAfter) }
        }
        expiry.start()

        let running = options
        let grace = Lock(options.grace)
        hangups.handle {
            let applied = BridgeReloader.reload(bridge, flags: flags, running: running)
            if let (configuration, newGrace) = applied {
                endpoints.replaceCertificates(BridgeAdmin.certificates(of: configuration))
                grace.withLock { $0 = newGrace }
            }
        }

        stopSignals.wait()
        expiry.stop()
        hangups.end()
        let stopGrace = grace.withLock { $0 }
        if lockLost.load(ordering: .relaxed) { abandon(bridge, grace: stopGrace) }
        LineWriter.stderr(BridgeLog.stopping(grace: stopGrace).text)
        endpoints.markStopping()
        let summary = bridge.stop(grace: stopGrace)
        admin?.stop()
        LineWriter.stdout(BridgeLog.summary(summary))
        return 0
    }

    /// Ends the process as a crash would, once the providers answered what they were handed
    /// (within `grace`): the connections are not told anything, and a restarted bridge or a
    /// peer on the store takes over what this one journaled — the path whose guarantees
    /// hold (docs/PROTOCOL.md §8). The summary is printed, then exit status 1, so that
    /// systemd (`Restart=on-failure`) starts it afresh.
    private static func abandon(_ bridge: Bridge, grace: Duration) -> Never {
        let unjournaled = bridge.abandon(grace: grace)
        LineWriter.stderr(BridgeLog.abandoned(unjournaled: unjournaled).text)
        LineWriter.stdout(BridgeLog.summary(bridge.summary))
        // No exit handlers, no orderly close of the clients' sockets: as a kill.
        _exit(1)
    }
}
