@_spi(APNBridge) public import APN
public import APNTLS
public import APNWire

extension Bridge {
    /// How a ``Bridge`` listens, whom it serves and where it forwards.
    public struct Configuration: Sendable {
        /// The address both listeners bind.
        public var host = "127.0.0.1"
        /// The binary gateway port (Apple's was 2195); 0 lets the system choose.
        public var gatewayPort: UInt16 = 0
        /// The feedback port (Apple's was 2196); 0 lets the system choose.
        public var feedbackPort: UInt16 = 0
        /// The bridge's server certificate and key, for both listeners.
        public var serverCredentials: TLSCredentials
        /// The CAs a client certificate must chain to; the tenants then say whose it is.
        public var clientCertificateAuthorities: [TLSCertificate]
        /// The senders served, and which client certificates are theirs.
        public var tenants: BridgeTenants
        /// The upstream every tenant's provider reaches (host, port, CA, timeouts); each
        /// tenant adds its credentials and topic (``BridgeTenant/providerOptions(_:)``).
        public var upstream: Provider.Options
        /// Unsettled notifications per connection before reading pauses.
        public var window = BridgeSession.defaultWindow
        /// Unsettled notifications across every connection of every tenant before reading
        /// pauses (`--max-in-flight`): what bounds the process's memory, whatever the number
        /// of connections. At the cap, connections are served room in turn, a share each
        /// (``InFlightLedger``); a slow upstream slows every sender through TCP. nil: no bound
        /// beyond ``window`` × ``maxConnections``. A reload applies a new value at once.
        public var maxInFlight: Int? = Configuration.defaultMaxInFlight
        /// The default ``maxInFlight``: with every other default (1,000 connections), the
        /// bridge process stays under 2 GB — about 1.5 KB a notification held (docs/BRIDGE.md,
        /// "Limits"), ~730 MB at the cap, the rest for connections, records and the store.
        public static let defaultMaxInFlight = 500_000
        /// After an error response for a refusal the bridge reads on, forwarding and
        /// remembering what the client had written after the refused notification, until
        /// the client closes or writes nothing for this long (at most 30 s in all). A
        /// client resends what followed the refusal, and the record answers it.
        public var collectionQuietPeriod = Configuration.defaultCollectionQuietPeriod
        /// The default ``collectionQuietPeriod``: long enough for what a client had in its
        /// buffers when it read the response to arrive on a loaded machine.
        public static let defaultCollectionQuietPeriod: Duration = .seconds(1)
        /// The token store keeping feedback tuples until served; nil keeps them in memory
        /// (lost when the bridge stops).
        public var storePath: String?
        /// How long a tenant's ``ResendRecord`` keeps an entry.
        public var resendRetention = ResendRecord.defaultRetention
        /// How many entries a tenant's ``ResendRecord`` keeps.
        public var resendCapacity = ResendRecord.defaultCapacity
        /// With a store, how many notifications a tenant hands its upstream provider at
        /// once, unanswered (#41): the rest wait in the journal, never written, so a kill
        /// catches at most this many between handed and written (counted maybe delivered
        /// by the next bridge). nil: the upstream's streams (``upstream`` `maxConnections`
        /// × `maxConcurrentStreams`, 1,000 by default).
        public var journalCredit: Int?
        /// With a store, how many notifications a tenant may have read and not yet in the
        /// store's journal (#41): at this many its connections read nothing more until a
        /// group commit. What a crash — or a lost store — loses is at most this, plus one
        /// decoded batch a connection, plus what the kernel and the client still hold; a
        /// store that hangs pauses the reading instead of growing that bound.
        /// ``defaultMaxUnjournaled`` by default.
        public var maxUnjournaled = Configuration.defaultMaxUnjournaled
        /// The default ``maxUnjournaled``: several group commits' worth at full speed, so
        /// that it bounds the loss without slowing the reading.
        public static let defaultMaxUnjournaled = 4_096
        /// The kernel receive buffer of each gateway connection (`SO_RCVBUF`, at most
        /// `net.core.rmem_max`; Linux keeps twice this, half of it for its own bookkeeping): what a client has written
        /// and the bridge not yet read — not journaled, so lost if the bridge is killed (the
        /// client's own send buffer and cache are the rest of that bound). nil: the
        /// system's autotuning (up to 6 MiB on Linux). 256 KiB by default.
        public var receiveBuffer: Int? = 256 << 10
        /// The token and payload bounds Apple's gateway enforced.
        public var limits = GatewayDecoder.Limits()
        /// The most client connections per listener.
        public var maxConnections = 1_000
        /// How long a client may send nothing before it is closed; nil (the default): as
        /// long as it likes, as Apple's gateway kept idle connections.
        public var idleTimeout: Duration?
        /// How long a frame begun may stay unfinished before its connection is ended as if
        /// the client had left (the partial frame dropped, everything before it answered):
        /// a client that sends half a frame must not hold a connection for ever. 30 s by
        /// default; nil: never.
        public var frameTimeout: Duration? = .seconds(30)
        /// Issue TLS session tickets. Off by default: TLS 1.3 sends them after the
        /// handshake, and clients written for Apple's TLS 1.2 gateway can trip on that
        /// (PyAPNs' error reader closes its connection on the ticket, measured: a refusal
        /// pending then would never reach it). A reconnect after a refusal then costs a full
        /// handshake, under 1 ms of CPU.
        public var sessionTickets = false
        /// The newest TLS version offered; nil: the newest OpenSSL has (1.3).
        public var maximumTLSVersion: TLSVersion?
        /// How long a client has to finish the TLS handshake.
        public var handshakeTimeout: Duration = .seconds(10)
        /// How long, after the bridge closed its side, it reads and discards.
        public var lingerTimeout: Duration = .seconds(1)
        /// Hears of connections, error responses, upstream and store failures
        /// (``BridgeEvent``); nil logs nothing. Called outside the bridge's locks, on the
        /// thread that saw the change: keep it quick.
        public var log: (@Sendable (BridgeEvent) -> Void)?
        /// Where the bridge logs (label `swift-apn.bridge`): the ``BridgeEvent``s too, at
        /// debug to notice; and every tenant's provider logs here, whatever
        /// ``upstream``'s own `logHandler`. Default: warnings and above on standard error
        /// (peer verification off upstream, nothing else).
        public var logHandler: any APNLogHandler = StandardErrorLogHandler()

        /// A configuration with the defaults described on each property.
        public init(
            serverCredentials: TLSCredentials, clientCertificateAuthorities: [TLSCertificate], tenants: BridgeTenants,
            upstream: Provider.Options
        ) {
            self.serverCredentials = serverCredentials
            self.clientCertificateAuthorities = clientCertificateAuthorities
            self.tenants = tenants
            self.upstream = upstream
        }
    }

    /// What a bridge did, from start to stop.
    public struct Summary: Sendable, Hashable {
        /// Summed over the tenants.
        public var counts = BridgeCounts()
        /// By tenant name.
        public var byTenant: [String: BridgeCounts] = [:]
        /// Feedback tuples queued (410 answers).
        public var feedbackStored = 0
        /// Feedback tuples written to clients.
        public var feedbackServed = 0
        /// Feedback tuples given up because the store kept failing.
        public var feedbackLost = 0
        /// Gateway connections closed at once (no tenant, backoff, stopping).
        public var refusedConnections = 0
        /// Sessions kept when the summary was taken: live connections and closed ones
        /// still awaiting answers (after a stop: those whose answers never came in time).
        public var unfinishedSessions = 0
        /// Client connections open now, by tenant.
        public var liveConnections: [String: Int] = [:]
        /// With a store, notifications read and not yet known to be in its journal, by
        /// tenant: what a crash would lose now (``Configuration/maxUnjournaled`` bounds it).
        public var unjournaled: [String: Int] = [:]
        /// Connections paused until the store's next group commit: their tenant's journal
        /// held ``Configuration/maxUnjournaled`` not yet in the store.
        public var waitingForStore = 0
        /// Notifications the sessions of every tenant hold unsettled now: what
        /// ``Configuration/maxInFlight`` bounds.
        public var held = 0
        /// The most ``held`` has been.
        public var heldPeak = 0
        /// The bound in effect (``Configuration/maxInFlight``); nil: none.
        public var maxInFlight: Int?
        /// Connections waiting for their turn to read at the bound now.
        public var waitingForRoom = 0
        /// How many times a connection found the bound reached and waited.
        public var roomWaits = 0

        /// Nothing yet.
        public init() {}
    }
}
