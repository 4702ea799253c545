@_spi(APNBridge) import APN
import APNWire

extension BridgeTenants {
    /// Reads a configuration file (`apn bridge --config FILE`):
    ///
    /// ```json
    /// {"tenants": [
    ///   {"name": "acme", "uid": "com.acme.app", "topic": "com.acme.app",
    ///    "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ", "p8": "/etc/apn/AuthKey_ABC123DEFG.p8"},
    ///   {"name": "legacy", "fingerprints": ["3F:9A:…"], "topic": "com.legacy.app",
    ///    "cert": "/etc/apn/legacy.pem", "key": "/etc/apn/legacy.key"}
    /// ]}
    /// ```
    ///
    /// A tenant's clients are named by `uid` (one or a list: the subject UID, the bundle id
    /// on Apple's push certificates) and/or `fingerprints` (SHA-256 of the certificate, hex,
    /// colons and case as `openssl x509 -fingerprint -sha256` prints them or not); its
    /// upstream by `key_id` + `team_id` + `p8`, or by `cert` + `key`; `push_type`, when
    /// given, is sent for all its notifications (`mdm` for an MDM server). An unknown key is
    /// refused rather than ignored, so a misspelt one cannot silently drop a setting.
    ///
    /// - Throws: ``BridgeConfigurationError`` naming the place (`tenants[1].topic`).
    public static func parse(json bytes: [UInt8]) throws(BridgeConfigurationError) -> BridgeTenants {
        let root: JSONObject
        do throws(JSONParseError) {
            root = try JSONParser().parseObject(bytes: bytes)
        } catch {
            throw BridgeConfigurationError("not a JSON object: \(error)")
        }
        try refuseUnknownKeys(root, allowed: ["tenants"], at: "the configuration")
        guard case .array(let entries)? = root["tenants"] else {
            throw BridgeConfigurationError("\"tenants\" must be an array of tenants")
        }
        var tenants: [BridgeTenant] = []
        for (index, entry) in entries.enumerated() {
            let place = "tenants[\(index)]"
            guard case .object(let object) = entry else { throw BridgeConfigurationError("\(place) is not an object") }
            tenants.append(try tenant(object, at: place))
        }
        return try BridgeTenants(tenants)
    }

    private static let tenantKeys: Set<String> = [
        "name", "uid", "fingerprints", "topic", "key_id", "team_id", "p8", "cert", "key", "push_type",
    ]

    private static func tenant(_ object: JSONObject, at place: String) throws(BridgeConfigurationError) -> BridgeTenant {
        try refuseUnknownKeys(object, allowed: tenantKeys, at: place)
        let name = try string(object, "name", at: place)
        let topic = try string(object, "topic", at: place)
        var matches: [BridgeTenant.Match] = []
        for uid in try strings(object, "uid", at: place) { matches.append(.userID(uid)) }
        for (index, text) in try strings(object, "fingerprints", at: place).enumerated() {
            let digits = text.utf8.filter { $0 != UInt8(ascii: ":") }
            guard let digest = bytes(fromHexDigits: digits) else {
                throw BridgeConfigurationError("\(place).fingerprints[\(index)] is not hex")
            }
            matches.append(.fingerprint(digest))
        }
        let token = ["key_id", "team_id", "p8"].filter { object[$0] != nil }
        let certificate = ["cert", "key"].filter { object[$0] != nil }
        let upstream: BridgeTenant.Upstream
        switch (token.count, certificate.count) {
        case (3, 0):
            upstream = .token(
                keyID: try string(object, "key_id", at: place), teamID: try string(object, "team_id", at: place),
                p8: try string(object, "p8", at: place))
        case (0, 2):
            upstream = .certificate(cert: try string(object, "cert", at: place), key: try string(object, "key", at: place))
        case (0, 0):
            throw BridgeConfigurationError("\(place) has no upstream credentials: key_id, team_id and p8, or cert and key")
        default:
            throw BridgeConfigurationError(
                "\(place) needs all of key_id, team_id and p8, or both cert and key, not a mix (has \((token + certificate).joined(separator: ", ")))")
        }
        var pushType: PushType?
        if object["push_type"] != nil {
            let text = try string(object, "push_type", at: place)
            guard let known = PushType.documented.first(where: { $0.rawValue == text }) else {
                throw BridgeConfigurationError(
                    "\(place).push_type \(String(reflecting: text)) is not one of Apple's: \(PushType.documented.map(\.rawValue).joined(separator: ", "))")
            }
            pushType = known
        }
        return BridgeTenant(name: name, matches: matches, topic: topic, upstream: upstream, pushType: pushType)
    }

    private static func refuseUnknownKeys(_ object: JSONObject, allowed: Set<String>, at place: String)
        throws(BridgeConfigurationError)
    {
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw BridgeConfigurationError(
                "\(place): unknown key \(String(reflecting: unknown)) (known: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    private static func string(_ object: JSONObject, _ key: String, at place: String) throws(BridgeConfigurationError) -> String {
        guard case .string(let value)? = object[key] else {
            throw BridgeConfigurationError("\(place).\(key) must be a string")
        }
        guard !value.isEmpty else { throw BridgeConfigurationError("\(place).\(key) is empty") }
        return value
    }

    /// A string or an array of strings; none when absent.
    private static func strings(_ object: JSONObject, _ key: String, at place: String) throws(BridgeConfigurationError) -> [String] {
        switch object[key] {
        case nil: return []
        case .string(let value)?: return [value]
        case .array(let values)?:
            var strings: [String] = []
            for (index, value) in values.enumerated() {
                guard case .string(let text) = value else {
                    throw BridgeConfigurationError("\(place).\(key)[\(index)] must be a string")
                }
                strings.append(text)
            }
            return strings
        default: throw BridgeConfigurationError("\(place).\(key) must be a string or an array of strings")
        }
    }
}
