import Foundation
import Testing

/// #43 item 4: every product hands out the TLS types it uses the same way. `APNTLS` is no
/// product, so a product whose public API names one of its types (a configuration that
/// takes `TLSCredentials`, a mock that hands out its `CertificateAuthority`) re-exports it —
/// and every `APNTLS` type that type's own public API names — in its `Exports.swift`, with
/// scoped `@_exported public import`s; and re-exports nothing it does not use.
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

    @Test(arguments: products.keys.sorted())
    func aProductReExportsTheTLSTypesItsAPINames(_ product: String) throws {
        let (types, files) = try Self.tlsTypes()
        let folder = Self.repository.appendingPathComponent(Self.products[product]!)
        var used: Set<String> = []
        var exported: Set<String> = []
        let export = #/^@_exported public import (?:struct|class|enum|protocol) APNTLS\.(\w+)/#
        for url in ArchitectureImportsTests.swiftFiles(in: folder) {
            let text = try String(contentsOf: url, encoding: .utf8)
            if url.lastPathComponent == "Exports.swift" {
                for line in text.split(separator: "\n") {
                    if let match = line.firstMatch(of: export) { exported.insert(String(match.1)) }
                }
            } else {
                used.formUnion(Self.named(types, onPublicLinesOf: text))
            }
        }
        // What a re-exported type's own API names comes with it.
        var pending = Array(used)
        while let type = pending.popLast() {
            for text in files[type] ?? [] {
                for other in Self.named(types, onPublicLinesOf: text) where used.insert(other).inserted { pending.append(other) }
            }
        }
        #expect(exported == used, "\(product): re-exports \(exported.sorted()), its API names \(used.sorted())")
    }
}
