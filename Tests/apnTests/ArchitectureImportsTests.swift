import Foundation
import Testing

/// docs/ARCHITECTURE.md's layering rule, held against the sources (#28): what each library and
/// executable target under `Sources/` (and the mock gateway's folder) imports stays within the
/// modules the rule allows it, the page's "Layering rule" table says the same as the table
/// here, and the page names every target `Package.swift` declares.
@Suite("Architecture imports") struct ArchitectureImportsTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The modules each target may import besides the toolchain's and the platform's: its
    /// dependencies in `Package.swift`, written out here so that a new import is a decision.
    static let allowed: [String: Set<String>] = [
        "APNWire": [],
        "APNSupport": [],
        "APNTLS": ["APNSupport", "COpenSSL"],
        "APNHTTP2": ["CNGHTTP2", "APNSupport"],
        "APNGatewayServer": ["APNSupport", "APNTLS", "APNWire"],
        "APNCore": ["APNWire", "APNSupport"],
        "APN": ["APNCore", "APNWire", "APNSupport", "APNTLS", "APNHTTP2"],
        "APNFeedbackStore": ["APNCore", "APNSupport", "CSQLite", "CPostgreSQL"],
        "APNCredentials": ["APNTLS"],
        "APNMockGateway": ["APNHTTP2", "APNWire", "APNSupport", "APNTLS", "APNGatewayServer", "APNCredentials"],
        "APNBridge": ["APNSupport", "APNCore", "APN", "APNTLS", "APNWire", "APNFeedbackStore", "APNGatewayServer", "APNCredentials"],
        "APNFeedbackService": ["APNSupport", "APN", "APNFeedbackStore"],
        "APNAdmin": ["APNSupport"],
        "apn": ["APNSupport", "APN", "APNAdmin", "APNBridge", "APNFeedbackService", "APNFeedbackStore", "APNMockGateway", "APNTLS", "APNWire"],
    ]

    /// Modules every target may import: the toolchain's and the platform's C library
    /// (`Darwin` is `Glibc`'s counterpart in `#if canImport` branches).
    static let platformModules: Set<String> = ["Foundation", "Dispatch", "Glibc", "Darwin", "Synchronization", "Testing"]

    /// The modules `source` imports: every `import` line, indented ones (`#if` branches)
    /// included, with its attributes (`@_exported`, `@testable`, `@_spi(APNBridge)`), access level and kind
    /// (`import struct APNWire.StatusCode`) read past.
    static func importedModules(in source: String) -> Set<String> {
        let importLine =
            #/^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)/#
        var modules: Set<String> = []
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let match = line.firstMatch(of: importLine) else { continue }
            let module = String(match.output.1)
            modules.insert(module)
        }
        return modules
    }

    /// Each library and executable target's folder: every folder under `Sources/` holding
    /// Swift files (named as its target), and the mock gateway's: `APNMockGateway` lives in
    /// the top-level `MockGateway/` the design card names, not under `Sources/`.
    static func targetFolders() throws -> [String: URL] {
        let sources = repository.appendingPathComponent("Sources")
        var folders: [String: URL] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let folder = sources.appendingPathComponent(name)
            if !swiftFiles(in: folder).isEmpty { folders[name] = folder }
        }
        folders["APNMockGateway"] = repository.appendingPathComponent("MockGateway")
        return folders
    }

    /// The Swift files under `folder`, at any depth.
    static func swiftFiles(in folder: URL) -> [URL] {
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return walk.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    /// The "Layering rule" table of docs/ARCHITECTURE.md: each row's target (first cell, in
    /// backticks) and the modules its second cell names in backticks ("none": no module).
    static func documentedRule(in markdown: String) -> [String: Set<String>] {
        let cell = #/`([^`]+)`/#
        var rule: [String: Set<String>] = [:]
        var inSection = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inSection = line == "## Layering rule" }
            guard inSection, line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count > 3, let target = cells[1].firstMatch(of: cell) else { continue }
            rule[String(target.output.1)] = Set(cells[2].matches(of: cell).map { String($0.output.1) })
        }
        return rule
    }

    /// The names of the targets `Package.swift` declares (libraries, executables, tests,
    /// system libraries), as it spells them.
    static func declaredTargets() throws -> [String] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declaration = #/\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"/#
        return manifest.matches(of: declaration).map { String($0.output.1) }
    }

    /// Whether `name` occurs in `text` as a whole word (not inside a longer identifier).
    static func mentions(_ text: String, _ name: String) -> Bool {
        let isWordCharacter = { (character: Character) in character.isLetter || character.isNumber || "_-".contains(character) }
        var searched = text[...]
        while let found = searched.range(of: name) {
            let before = found.lowerBound == text.startIndex ? nil : text[text.index(before: found.lowerBound)]
            let after = found.upperBound == text.endIndex ? nil : text[found.upperBound]
            if !(before.map(isWordCharacter) ?? false), !(after.map(isWordCharacter) ?? false) { return true }
            searched = text[found.upperBound...]
        }
        return false
    }

    static func architecture() throws -> String {
        try String(contentsOf: repository.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
    }

    @Test("import lines are read: attributes, access levels and kinds skipped, indented ones kept")
    func importLinesAreRead() {
        let source = """
            import Foundation // UUID
            @_exported public import enum APNWire.Command
            @testable import APN
            package import APNSupport
            internal import CNGHTTP2
            #if canImport(Glibc)
                import Glibc
            #endif
            public import APNMockGateway
            /// import NotAModule, in a comment
            let important = "import"
            """
        #expect(
            Self.importedModules(in: source)
                == ["Foundation", "APNWire", "APN", "APNSupport", "CNGHTTP2", "Glibc", "APNMockGateway"])
    }

    @Test("whole-word mentions: a name inside a longer identifier does not count")
    func wholeWordMentions() {
        #expect(Self.mentions("the `APN` library", "APN"))
        #expect(!Self.mentions("APNWire and APNTLS", "APN"))
        #expect(Self.mentions("APNWire, then APN.", "APN"))
        #expect(!Self.mentions("apn-bench", "apn"))
    }

    @Test("every target folder under Sources/ has a row in the rule, and every row a folder")
    func everyTargetHasARow() throws {
        let folders = try Self.targetFolders()
        #expect(Set(folders.keys) == Set(Self.allowed.keys))
        for (target, folder) in folders {
            #expect(!Self.swiftFiles(in: folder).isEmpty, "\(target): no Swift files in \(folder.path)")
        }
    }

    @Test("each target imports only what the layering rule allows it")
    func importsStayWithinTheRule() throws {
        for (target, folder) in try Self.targetFolders().sorted(by: { $0.key < $1.key }) {
            let allowed = Self.allowed[target] ?? []
            for file in Self.swiftFiles(in: folder) {
                let source = try String(contentsOf: file, encoding: .utf8)
                let extra = Self.importedModules(in: source).subtracting(Self.platformModules).subtracting(allowed)
                #expect(extra.isEmpty, "\(target): \(file.lastPathComponent) imports \(extra.sorted()), which the layering rule does not allow")
            }
        }
    }

    @Test("docs/ARCHITECTURE.md's layering rule is this table")
    func documentedRuleMatches() throws {
        let documented = Self.documentedRule(in: try Self.architecture())
        #expect(documented == Self.allowed)
    }

    @Test("docs/ARCHITECTURE.md names every target Package.swift declares")
    func everyTargetIsNamed() throws {
        let architecture = try Self.architecture()
        let targets = try Self.declaredTargets()
        #expect(targets.contains("APN") && targets.contains("apn"))
        for target in targets {
            #expect(Self.mentions(architecture, target), "docs/ARCHITECTURE.md does not mention \(target)")
        }
    }

    @Test("the top level is the design card's: Package.swift, Sources, Tests, MockGateway, README.md, CHANGELOG.md")
    func topLevelIsTheDesignCards() throws {
        let files = FileManager.default
        for name in ["Package.swift", "README.md", "CHANGELOG.md"] {
            var isFolder: ObjCBool = true
            #expect(files.fileExists(atPath: Self.repository.appendingPathComponent(name).path, isDirectory: &isFolder) && !isFolder.boolValue, "\(name) missing")
        }
        for name in ["Sources", "Tests", "MockGateway"] {
            var isFolder: ObjCBool = false
            #expect(files.fileExists(atPath: Self.repository.appendingPathComponent(name).path, isDirectory: &isFolder) && isFolder.boolValue, "\(name)/ missing")
        }
        #expect(!files.fileExists(atPath: Self.repository.appendingPathComponent("Sources/APNMockGateway").path))
        for folder in ["Binary", "HTTP2", "Shared"] {
            #expect(!Self.swiftFiles(in: Self.repository.appendingPathComponent("MockGateway/\(folder)")).isEmpty, "MockGateway/\(folder) holds no Swift file")
        }
        let manifest = try String(contentsOf: Self.repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#"name: "APNMockGateway""#) && manifest.contains(#"path: "MockGateway""#))
    }
}
