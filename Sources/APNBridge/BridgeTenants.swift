public import APNTLS
@_spi(APNBridge) import APN
import APNWire

/// A bridge configuration refused: what is wrong, and where (`tenants[1].topic`).
public struct BridgeConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The problem, naming the place in the configuration.
    public let message: String

    /// Creates one.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// The tenants of one bridge, and which of them a client certificate belongs to.
public struct BridgeTenants: Sendable {
    /// Every tenant, in the configuration's order.
    public let all: [BridgeTenant]
    private let byFingerprint: [[UInt8]: Int]
    private let byUserID: [String: Int]

    /// Checks `tenants`: at least one; names non-empty and unique; each with a topic and
    /// at least one match; no certificate (fingerprint) or UID claimed by two tenants,
    /// since a client of one must never be taken for another's.
    ///
    /// - Throws: ``BridgeConfigurationError`` naming the first problem.
    public init(_ tenants: [BridgeTenant]) throws(BridgeConfigurationError) {
        guard !tenants.isEmpty else { throw BridgeConfigurationError("no tenant configured") }
        var names: Set<String> = []
        var byFingerprint: [[UInt8]: Int] = [:]
        var byUserID: [String: Int] = [:]
        for (index, tenant) in tenants.enumerated() {
            let place = "tenants[\(index)]"
            guard !tenant.name.isEmpty else { throw BridgeConfigurationError("\(place).name is empty") }
            guard names.insert(tenant.name).inserted else {
                throw BridgeConfigurationError("\(place).name \(String(reflecting: tenant.name)) is used twice")
            }
            guard !tenant.topic.isEmpty else { throw BridgeConfigurationError("\(place).topic is empty") }
            guard !tenant.matches.isEmpty else {
                throw BridgeConfigurationError("\(place) names no client certificate (fingerprint or uid)")
            }
            for match in tenant.matches {
                switch match {
                case .fingerprint(let digest):
                    guard digest.count == 32 else {
                        throw BridgeConfigurationError("\(place).fingerprint is \(digest.count) bytes; SHA-256 is 32")
                    }
                    if let other = byFingerprint.updateValue(index, forKey: digest) {
                        throw BridgeConfigurationError("\(place).fingerprint \(hexString(digest)) is tenants[\(other)]'s too")
                    }
                case .userID(let uid):
                    guard !uid.isEmpty else { throw BridgeConfigurationError("\(place).uid is empty") }
                    if let other = byUserID.updateValue(index, forKey: uid) {
                        throw BridgeConfigurationError("\(place).uid \(String(reflecting: uid)) is tenants[\(other)]'s too")
                    }
                }
            }
        }
        self.all = tenants
        self.byFingerprint = byFingerprint
        self.byUserID = byUserID
    }

    /// The tenant `certificate` belongs to: by its fingerprint first (one certificate named
    /// exactly), else by its subject's UID; `nil` for a certificate no tenant names.
    public func tenant(for certificate: TLSCertificate) -> BridgeTenant? {
        if let index = byFingerprint[certificate.sha256Fingerprint] { return all[index] }
        if let uid = certificate.subjectUserID, let index = byUserID[uid] { return all[index] }
        return nil
    }
}
