import APN

/// What replaying a ``GoldenCase`` gave.
enum GoldenVerdict {
    /// JSON bytes, length and every trim result as node-apn's.
    case passed
    /// Something differs; the message says what, line by line.
    case failed(String)
    /// node-apn's payload mutation shows (``NodeApsPersistence``): a deliberate difference.
    case deliberate(String)
    /// A JavaScript value Swift's types cannot hold.
    case javaScriptOnly(String)

    /// Replays `golden` and compares.
    init(_ golden: GoldenCase) {
        let replay: GoldenReplay
        do {
            replay = try GoldenReplay(golden)
        } catch let unsupported as GoldenReplay.Unsupported {
            self = .javaScriptOnly(unsupported.description)
            return
        } catch {
            self = .failed("replay threw \(error)")
            return
        }
        do {
            var customAps: JSONObject?
            if case .object(let aps)? = golden.payload?["aps"] {
                customAps = aps
            }
            if let reason = try NodeApsPersistence.difference(compiles: replay.compiles, customAps: customAps) {
                self = .deliberate(reason)
                return
            }
        } catch {
            self = .failed("swift-apn's payload is not valid JSON: \(error)")
            return
        }
        let problems = Self.problems(golden, replay.notification, trims: replay.trims)
        self = problems.isEmpty ? .passed : .failed(problems.joined(separator: "\n"))
    }

    private static func problems(_ golden: GoldenCase, _ note: Notification, trims: [Int]) -> [String] {
        var problems: [String] = []
        let actual = note.payloadString()
        let expectedBytes = encode(golden.json, note.encoding)
        let actualBytes = note.compiledPayload()
        if actual != golden.json || actualBytes != expectedBytes {
            let at = zip(golden.json, actual).prefix { $0 == $1 }.count
            problems.append("json expected: \(golden.json)")
            problems.append("     actual:   \(actual)")
            problems.append("     first difference at character \(at) (\(note.encoding.rawValue))")
        }
        if note.length() != golden.length {
            problems.append("length expected \(golden.length), actual \(note.length())")
        }
        if trims != golden.trims {
            problems.append("trims expected \(golden.trims), actual \(trims)")
        }
        return problems
    }

    /// `text` in `encoding`, as node-apn's `Buffer.byteLength` counts it.
    private static func encode(_ text: String, _ encoding: PayloadEncoding) -> [UInt8] {
        switch encoding {
        case .utf8:
            return Array(text.utf8)
        case .ucs2:
            return text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        }
    }
}
