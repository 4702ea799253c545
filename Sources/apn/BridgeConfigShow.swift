import APNBridge
import APNWire

/// `apn bridge --check-config` (#42): the effective configuration as one JSON line in the
/// form of a configuration file — every flag given (typed or from the file) or with a
/// declared default, then the tenants — so what is printed, saved, starts the same bridge.
/// A value the file took from the environment or a file is shown by that source, and a
/// store URL without its password: the line can be pasted into a ticket.
enum BridgeConfigShow {
    static func line(_ options: BridgeFlags.Options) -> JSONValue {
        var members = ConfigShow.members(
            BridgeFlags.groups, flags: options.flags, file: options.file,
            skipping: Set(BridgeFlags.tenantGroup.flags.map(\.name)))
        members.append(("tenants", .array(options.configuration.tenants.all.map(tenant))))
        return .object(members)
    }

    private static func tenant(_ tenant: BridgeTenant) -> JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(tenant.name))]
        var uids: [JSONValue] = []
        var fingerprints: [JSONValue] = []
        for match in tenant.matches {
            switch match {
            case .userID(let uid): uids.append(.string(uid))
            case .fingerprint(let digest): fingerprints.append(.string(hexString(digest)))
            }
        }
        if !uids.isEmpty { members.append(("uid", .array(uids))) }
        if !fingerprints.isEmpty { members.append(("fingerprints", .array(fingerprints))) }
        members.append(("topic", .string(tenant.topic)))
        switch tenant.upstream {
        case .token(let keyID, let teamID, let p8):
            members += [("key_id", .string(keyID)), ("team_id", .string(teamID)), ("p8", .string(p8))]
        case .certificate(let cert, let key):
            members += [("cert", .string(cert)), ("key", .string(key))]
        }
        if let pushType = tenant.pushType { members.append(("push_type", .string(pushType.rawValue))) }
        return .object(members)
    }
}
