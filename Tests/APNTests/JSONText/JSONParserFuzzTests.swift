import APN
import APNTestSupport
import APNTestTraits
import Testing

@Suite("JSONParser under random input", .threadPerTest)
struct JSONParserFuzzTests {
    /// Bytes that matter to the grammar, plus some that never may appear, so that random
    /// strings get deep into the parser rather than failing at the first byte.
    static let alphabet: [UInt8] = Array(#"{}[]:,"\/ -+.eE0123456789truefalsnlu"#.utf8)
        + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC2, 0xE2, 0xED, 0xF0, 0xF4, 0xFF]

    @Test("random bytes and mutated documents never crash; errors point inside the text")
    func randomInput() {
        let seed: UInt64 = 0x5EED_0013
        var random = SplitMix64(seed: seed)
        let seeds: [String] = [
            #"{"aps":{"alert":{"title":"Hi","body":"\u00e9\uD83D\uDE00"},"badge":3},"n":[1.5e3,-0,null,true]}"#,
            #"[{"a":[[]]},"x\n\"",{}]"#,
        ]
        let parser = JSONParser(maximumDepth: 16, maximumSize: 4096)
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                let length = Int.random(in: 0...40, using: &random)
                bytes = (0..<length).map { _ in Self.alphabet.randomElement(using: &random)! }
            } else {
                bytes = Array(seeds[round % seeds.count].utf8)
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let position = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: bytes[position] = Self.alphabet.randomElement(using: &random)!
                    case 1: bytes.remove(at: position)
                    default: bytes.insert(Self.alphabet.randomElement(using: &random)!, at: position)
                    }
                    if bytes.isEmpty { break }
                }
            }
            do {
                let value = try parser.parse(bytes: bytes)
                // Whatever is accepted must read back the same from the library's own output.
                let again = try parser.parse(bytes: value.jsonBytes())
                #expect(again == value || Self.hasNaN(value), "seed \(seed) round \(round)")
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count, "seed \(seed) round \(round): \(error)")
            }
        }
    }

    /// Infinity reads in and writes out as null, so such values do not read back equal.
    private static func hasNaN(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let number): !number.isFinite
        case .array(let elements): elements.contains(where: hasNaN)
        case .object(let object): object.values.contains(where: hasNaN)
        default: false
        }
    }
}
