public import APNWire

/// What finally happened to one notification handed to a connection. Every notification
/// ends in exactly one outcome.
public enum NotificationOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The gateway took it. ``Acceptance`` says what confirms it.
    case accepted(Acceptance)
    /// The gateway refused it with an error response naming it.
    case rejected(StatusCode)
    /// It was not delivered, for the reason the error gives: refused before sending (bad
    /// token, payload too large, no device, what the format cannot carry), retry limit,
    /// connection retry limit, credentials, termination, or not resent after an earlier
    /// rejection.
    indirect case failed(APNError)
    /// Nobody can tell whether the gateway took it.
    case unknownFate(UnknownFateReason)

    /// Whether the outcome is ``accepted(_:)``.
    public var isAccepted: Bool {
        if case .accepted = self { true } else { false }
    }

    /// `accepted (grace window)`, `rejected with 8 (invalid token)` …
    public var description: String {
        switch self {
        case .accepted(let acceptance): "accepted (\(acceptance))"
        case .rejected(let status): "rejected with \(status)"
        case .failed(let error): "failed: \(error)"
        case .unknownFate(let reason): "unknown fate (\(reason))"
        }
    }
}

/// What confirms that the gateway accepted a notification. Apple never acknowledged
/// success, so acceptance is always inferred; this says from what.
public struct Acceptance: Hashable, Sendable, CustomStringConvertible {
    /// The evidence for acceptance.
    public enum Evidence: Hashable, Sendable {
        /// An error response named a notification written later on the same connection;
        /// the gateway processes in order, so everything before it was taken.
        case laterIdentifier
        /// A status 10 (shutdown) response named this notification or a later one as the
        /// last that succeeded.
        case shutdownIdentifier
        /// A confirmation marker was answered: the deliberately invalid frame written after
        /// this notification by a confirmed flush, rolling confirmation, a full cache, an
        /// awaited ``Connection/send(_:to:)`` with nothing queued behind it, or after
        /// resending it.
        case flush
        /// The grace window passed after the gateway's TCP acknowledged it (never while it
        /// was still in the send queue), with the connection healthy and no error response
        /// naming anything before it.
        case graceWindow
    }

    /// The evidence for acceptance.
    public let evidence: Evidence
    /// True when the notification was written more than once (resent after an error
    /// response that named nothing usable, or after a silent close under the resend
    /// policy), so the device may receive it twice — never more than twice.
    public let possiblyDuplicated: Bool

    /// Creates an acceptance.
    public init(evidence: Evidence, possiblyDuplicated: Bool = false) {
        self.evidence = evidence
        self.possiblyDuplicated = possiblyDuplicated
    }

    /// `grace window`, `later identifier, possibly duplicated` …
    public var description: String {
        let name = switch evidence {
        case .laterIdentifier: "later identifier"
        case .shutdownIdentifier: "shutdown identifier"
        case .flush: "flush"
        case .graceWindow: "grace window"
        }
        return possiblyDuplicated ? "\(name), possibly duplicated" : name
    }
}

/// Why a notification's fate cannot be known.
public enum UnknownFateReason: Hashable, Sendable, CustomStringConvertible {
    /// With a count-bounded cache (`cacheLength` set), an error response named a
    /// notification older than the cache holds; the notifications written between it and
    /// the oldest cached one were discarded by the gateway but can no longer be resent
    /// (node-apn lost these silently). The default cache, kept by fate, never evicts.
    case evictedFromCache
    /// The connection closed without an error response before it was confirmed, and the
    /// silent-close policy is to report rather than resend — or it was already a resent,
    /// possibly duplicated copy, which is not sent a third time.
    case unconfirmedAtClose
    /// An error response did not say which notification it was about (identifier 0, or
    /// one never written on the connection), and this one could not be resent (evicted
    /// from a count-bounded cache, already a resent copy, or not resent with
    /// `buffersNotifications` off): it may have been taken before the bad one, or
    /// discarded after it.
    case unattributedError
    /// Only as what ``Connection/send(_:to:)`` returns: the Task awaiting it was cancelled
    /// before the outcome was known. The notification was not recalled; its outcome still
    /// reaches the errorCallback, the events and the connection's next report.
    case cancelled

    /// `evicted from the resend cache` …
    public var description: String {
        switch self {
        case .evictedFromCache: "evicted from the resend cache"
        case .unconfirmedAtClose: "unconfirmed at a silent close"
        case .unattributedError: "after an unattributed error response"
        case .cancelled: "the caller stopped waiting"
        }
    }
}

/// What node-apn's `errorCallback(errorCode, notification)` receives as its first argument:
/// a status code (Apple's, or node-apn's 512–515), or an error for connection failures.
public enum ErrorCallbackCode: Hashable, Sendable, CustomStringConvertible {
    /// A status code.
    case status(StatusCode)
    /// A connection error.
    indirect case error(APNError)

    /// The status code, or the error's description.
    public var description: String {
        switch self {
        case .status(let status): "\(status)"
        case .error(let error): "\(error)"
        }
    }
}

/// What to do with notifications written and not yet confirmed when a connection closed
/// without an error response: the gateway may have taken them, or dropped them with the
/// connection.
public enum SilentClosePolicy: Hashable, Sendable {
    /// Report them as ``UnknownFateReason/unconfirmedAtClose``, with
    /// `errorCallback(error, notification)`: no duplicates, but possibly lost (node-apn
    /// treated them as delivered, and lost them silently).
    case reportUnconfirmed
    /// Resend them on the next connection, marked possibly duplicated and followed by a
    /// confirmation marker (the default): none lost, but a device may receive one twice.
    /// A resent copy left unconfirmed by another close is reported of unknown fate rather
    /// than sent a third time.
    case resend
}
