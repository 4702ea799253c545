import Foundation
import Testing

/// #43 item 4: every product hands out the TLS types it uses the same way. `APNTLS` is no
/// product, so the `APNCredentials` product re-exports its credential types, and a product
/// whose public API names one of them (a configuration that takes `TLSCredentials`, a mock
/// that hands out its `CertificateAuthority`) re-exports `APNCredentials` in its
/// `Exports.swift` — which must then hold that type and every `APNTLS` type its own API names.
@Suite("Credential types re-exported") struct CredentialExportsTests {
    static let repository = ArchitectureImportsTests.repository

    /// The product modules and their folders.
    static let products: [String: String] = [
        "APN": "Sources/APN", "APNBridge": "Sources/APNBridge", "APNFeedbackStore": "Sources/APNFeedbackStore",
        "APNMockGateway": "MockGateway",
    ]

    /// `APNTLS`'s public types, by the file declaring or extending each.
    static func tlsTypes() throws -> (names: Set<String>, files: [String: [String]]) {
        let folder = repository.appendingPathComponent("Sources/APNTLS")
        let declaration = #/^public (?:final )?(?:struct|class|enum|protocol) (\w+)/#
        let extensionLine = #/^(?:public )?extension (\w+)/#
        var names: Set<String> = []
        var files: [String: [String]] = [:]
        for url in ArchitectureImportsTests.swiftFiles(in: folder) {
            let text = try String(contentsOf: url, encoding: .utf8)
            for line in text.split(separator: "\n") {
                if let match = line.firstMatch(of: declaration) {
                    names.insert(String(match.1))
                    files[String(match.1), default: []].append(text)
                } else if let match = line.firstMatch(of: extensionLine) {
                    files[String(match.1), default: []].append(text)
                }
            }
        }
        return (names, files)
    }

    /// The names of `types` on the `public` lines of `text` (doc comments left out).
    static func named(_ types: Set<String>, onPublicLinesOf text: String) -> Set<String> {
        var found: Set<String> = []
        for line in text.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("public ") || trimmed.hasPrefix("open ") else { continue }
            for word in trimmed.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" }) where types.contains(String(word)) {
                found.insert(String(word))
            }
        }
        return found
    }

    /// What `APNCredentials` re-exports.
    static func credentialTypes() throws -> Set<String> {
        let text = try String(
            contentsOf: repository.appendingPathComponent("Sources/APNCredentials/Exports.swift"), encoding: .utf8)
        let export = #/^@_exported public import (?:struct|class|enum|protocol) APNTLS\.(\w+)/#
        return Set(text.split(separator: "\n").compactMap { $0.firstMatch(of: export).map { String($0.1) } })
    }

    @Test(arguments: products.keys.sorted())
    func aProductReExportsTheTLSTypesItsAPINames(_ product: String) throws {
        let (types, files) = try Self.tlsTypes()
        let folder = Self.repository.appendingPathComponent(Self.products[product]!)
        var used: Set<String> = []
        var reExportsCredentials = false
        for url in ArchitectureImportsTests.swiftFiles(in: folder) {
            let text = try String(contentsOf: url, encoding: .utf8)
            if url.lastPathComponent == "Exports.swift" {
                reExportsCredentials = text.contains("@_exported public import APNCredentials")
            } else {
                used.formUnion(Self.named(types, onPublicLinesOf: text))
            }
        }
        // What a type's own API names comes with it.
        var pending = Array(used)
        while let type = pending.popLast() {
            for text in files[type] ?? [] {
                for other in Self.named(types, onPublicLinesOf: text) where used.insert(other).inserted { pending.append(other) }
            }
        }
        #expect(reExportsCredentials == !used.isEmpty, "\(product) names \(used.sorted()): re-exports APNCredentials exactly then")
        let missing = used.subtracting(try Self.credentialTypes())
        #expect(missing.isEmpty, "\(product) names \(missing.sorted()), which APNCredentials does not re-export")
    }
}
