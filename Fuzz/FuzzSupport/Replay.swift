import Foundation

/// The regression runner a fuzz target's `main` becomes when it is not built for libFuzzer:
/// every file named on the command line, and every file inside a named directory, is read
/// and handed to `entry` — the target's `LLVMFuzzerTestOneInput` — once.
public enum Replay {
    /// Replays `CommandLine.arguments` through `entry`, prints how many inputs ran and
    /// exits 0, or 2 when an argument cannot be read (a crash aborts the process on its own).
    /// `--write-seeds DIRECTORY` instead writes `seeds()` there, one file per seed.
    public static func main(
        _ entry: (UnsafePointer<UInt8>?, Int) -> CInt, seeds: () throws -> [(name: String, bytes: [UInt8])]
    ) -> Never {
        let arguments = CommandLine.arguments.dropFirst()
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data(
                "usage: \(CommandLine.arguments[0]) FILE-OR-DIRECTORY... | --write-seeds DIRECTORY\n".utf8))
            exit(2)
        }
        if arguments.first == "--write-seeds", arguments.count == 2, let directory = arguments.last {
            do {
                let all = try seeds()
                // Created when missing, as a corpus directory usually is.
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for seed in all {
                    try Data(seed.bytes).write(to: URL(fileURLWithPath: "\(directory)/\(seed.name)"))
                }
                print("wrote \(all.count) seeds to \(directory)")
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("writing seeds to \(directory): \(error.localizedDescription)\n".utf8))
                exit(1)
            }
        }
        var count = 0
        for path in arguments {
            guard let files = inputs(at: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(2)
            }
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
                    exit(2)
                }
                _ = Array(data).withUnsafeBufferPointer { entry($0.baseAddress, $0.count) }
                count += 1
            }
        }
        print("replayed \(count) inputs")
        exit(0)
    }

    /// The file itself, or the regular files in a directory, sorted; `nil` when missing.
    static func inputs(at path: String) -> [String]? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else { return [path] }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return nil }
        return names.sorted().map { "\(path)/\($0)" }.filter { file in
            var nested: ObjCBool = false
            return FileManager.default.fileExists(atPath: file, isDirectory: &nested) && !nested.boolValue
        }
    }
}
