import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// #42 item 5: the systemd units in `contrib/systemd/`. `systemd-analyze verify` reads each
/// as systemd would and has nothing to say of it; each reloads on SIGHUP, restarts on
/// failure, is sandboxed, keeps its store in a state directory of its own, runs as the user
/// `apn.sysusers.conf` creates and gives the bridge's stop (its default grace plus 2 s) room
/// before SIGKILL.
@Suite("contrib/systemd units", .threadPerTest, .ownsChildProcesses)
struct SystemdUnitsTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("contrib/systemd")
    static let systemdAnalyze = "/usr/bin/systemd-analyze"
    /// Where the units expect the binary; the copies that `systemd-analyze` verifies name
    /// the built one instead, as verify checks that the executable exists.
    static let installedApn = "/usr/local/bin/apn"

    /// Every `*.service` in contrib/systemd: its file name and text.
    static func units() throws -> [(name: String, text: String)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".service") }.sorted()
        return try names.map { ($0, try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// `text` with the installed binary in `ExecStart=` replaced by the built one.
    static func withBuiltApn(_ text: String) throws -> String {
        let built = try ApnProcess.executable().path
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("ExecStart=\(installedApn) ")
                ? "ExecStart=\(built)" + line.dropFirst("ExecStart=\(installedApn)".count) : String(line)
        }.joined(separator: "\n")
    }

    /// `systemd-analyze verify` of the unit file at `path`: its exit status and every line
    /// it wrote. Generators and man pages are left out (a container has neither to offer),
    /// and only this unit's own problems fail it, not those of the host's units it pulls in.
    /// The log level is pinned: an inherited `SYSTEMD_LOG_LEVEL=debug` would name the unit
    /// on every line.
    static func verify(_ path: String) throws -> (status: Int32, lines: [String]) {
        let analyze = try ApnProcess(
            ["verify", "--man=no", "--generators=no", "--recursive-errors=no", path],
            environment: ["SYSTEMD_LOG_LEVEL": "info", "SYSTEMD_LOG_COLOR": "0"], executable: systemdAnalyze)
        let (status, standardError) = try analyze.waitForExit()
        let lines = try analyze.remainingLines() + standardError.split(separator: "\n").map(String.init)
        return (status, lines)
    }

    // Skipped where systemd-analyze is not installed (Debian: the `systemd` package); the
    // content test below still runs there.
    @Test(
        "systemd-analyze verify passes each unit and says nothing of it; a misspelt key fails it",
        .enabled(if: FileManager.default.isExecutableFile(atPath: systemdAnalyze)))
    func systemdAnalyzeVerify() throws {
        let units = try Self.units()
        try #require(!units.isEmpty, "no *.service in \(Self.directory.path)")
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        for unit in units {
            // The copy keeps the unit's name: systemd reads the unit's name from it.
            let copy = (folder as NSString).appendingPathComponent(unit.name)
            try Self.withBuiltApn(unit.text).write(toFile: copy, atomically: false, encoding: .utf8)
            let (status, lines) = try Self.verify(copy)
            #expect(status == 0, "\(unit.name): \(lines)")
            #expect(lines.filter { $0.contains(unit.name) } == [], "\(unit.name): warnings")
        }

        // The check can fail: a misspelt key is told, naming the file, and fails verify.
        let misspelt = (folder as NSString).appendingPathComponent("misspelt.service")
        let bridge = try #require(units.first { $0.name == "apn-bridge.service" })
        try Self.withBuiltApn(bridge.text).replacingOccurrences(of: "\nNoNewPrivileges=", with: "\nNoNewPrivilege=")
            .write(toFile: misspelt, atomically: false, encoding: .utf8)
        let (status, lines) = try Self.verify(misspelt)
        #expect(status != 0)
        #expect(lines.contains { $0.contains("misspelt.service") && $0.contains("NoNewPrivilege") }, "\(lines)")
    }

    @Test("each unit reloads with SIGHUP, restarts on failure, is sandboxed, has a state directory and outwaits the grace")
    func unitContent() throws {
        let units = try Self.units()
        #expect(units.map(\.name) == ["apn-bridge.service", "apn-feedback-service.service"])
        // The bridge's default --grace, as `apn bridge --help` states it; the stop may take 2 s more.
        let help = try ApnConventionsTests.apn(["bridge", "--help"])
        let graceLine = try #require(try Regex(#"--grace SECONDS .*\(default (\d+)\)"#).firstMatch(in: help.output))
        let grace = try #require(Double(graceLine.output[1].substring ?? ""))
        let sysusers = try String(contentsOf: Self.directory.appendingPathComponent("apn.sysusers.conf"), encoding: .utf8)

        for unit in units {
            let file = UnitFile(unit.text)
            let name = String(unit.name.dropLast(".service".count))
            #expect(file.value("ExecStart")?.hasPrefix("\(Self.installedApn) ") == true, "\(name)")
            #expect(file.value("ExecReload") == "/bin/kill -HUP $MAINPID", "\(name)")
            #expect(file.value("Restart") == "on-failure", "\(name)")
            #expect(file.value("NoNewPrivileges") == "yes", "\(name)")
            #expect(file.value("ProtectSystem") == "strict", "\(name)")
            #expect(file.value("StateDirectory") == name, "\(name): the store's directory is /var/lib/\(name)")
            let stop = try #require(file.value("TimeoutStopSec").flatMap(UnitFile.seconds), "\(name): TimeoutStopSec")
            #expect(stop > grace + 2, "\(name): TimeoutStopSec \(stop) s, the stop takes up to \(grace) + 2 s")
            let user = try #require(file.value("User"), "\(name): User")
            #expect(sysusers.split(separator: "\n").contains { $0.hasPrefix("u \(user) ") }, "\(name): \(user) in apn.sysusers.conf")
        }
    }

    @Test("the unit reading: sections, repeated keys, comments, continuations; time spans")
    func unitFileReading() {
        let file = UnitFile(
            """
            # a comment
            [Service]
            ; another comment
            SystemCallFilter=@system-service
            SystemCallFilter=~@privileged
            ExecStart=/bin/a \\
              --flag
            [Install]
            WantedBy=multi-user.target
            """)
        #expect(file.values("SystemCallFilter") == ["@system-service", "~@privileged"])
        #expect(file.value("ExecStart") == "/bin/a --flag")
        #expect(file.value("WantedBy") == nil)
        #expect(file.value("WantedBy", in: "Install") == "multi-user.target")
        #expect(UnitFile.seconds("15s") == 15)
        #expect(UnitFile.seconds("15") == 15)
        #expect(UnitFile.seconds("1min 30s") == 90)
        #expect(UnitFile.seconds("1m500ms") == 60.5)
        #expect(UnitFile.seconds("15 parsecs") == nil)
    }
}

/// What the tests need of a systemd unit file (systemd.syntax(7)): the assignments of each
/// section, in order, a key possibly repeated; `#` and `;` lines are comments and a line
/// ending in a backslash goes on in the next. Not a full reading: no quoting, no specifiers.
struct UnitFile {
    private var assignments: [(section: String, key: String, value: String)] = []

    init(_ text: String) {
        var section = ""
        var pending = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = pending + raw.trimmingCharacters(in: .whitespaces)
            if line.hasSuffix("\\") {
                pending = line.dropLast().trimmingCharacters(in: .whitespaces) + " "
                continue
            }
            pending = ""
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
            } else if let equals = line.firstIndex(of: "=") {
                let key = line[..<equals].trimmingCharacters(in: .whitespaces)
                let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                assignments.append((section, key, value))
            }
        }
    }

    /// Every value of `key` in `section`, in order.
    func values(_ key: String, in section: String = "Service") -> [String] {
        assignments.filter { $0.section == section && $0.key == key }.map(\.value)
    }

    /// The value of `key` in `section` that counts (the last).
    func value(_ key: String, in section: String = "Service") -> String? {
        values(key, in: section).last
    }

    /// A time span (systemd.time(7)) in seconds: "15s", "1min 30s", a bare number of
    /// seconds; nil for a unit it does not know.
    static func seconds(_ span: String) -> Double? {
        let units: [String: Double] = [
            "": 1, "s": 1, "sec": 1, "second": 1, "seconds": 1, "ms": 0.001, "msec": 0.001,
            "m": 60, "min": 60, "minute": 60, "minutes": 60, "h": 3_600, "hr": 3_600, "hour": 3_600, "hours": 3_600,
        ]
        var total = 0.0
        var rest = Substring(span.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            rest = rest.dropFirst(number.count).drop { $0 == " " }
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count).drop { $0 == " " }
            guard let amount = Double(number), let scale = units[String(unit)] else { return nil }
            total += amount * scale
        }
        return total
    }
}
