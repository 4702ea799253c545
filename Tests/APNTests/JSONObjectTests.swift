import APN
import APNTestSupport
import APNTestTraits
import Testing

@Suite("JSONObject keeps JavaScript's key order", .threadPerTest)
struct JSONObjectTests {
    @Test("insertion order; replacing keeps the position; removing deletes; re-adding appends")
    func order() {
        var object: JSONObject = ["b": 1, "a": 2, "c": 3]
        #expect(object.jsonString() == #"{"b":1,"a":2,"c":3}"#)
        object["a"] = "x"
        #expect(object.jsonString() == #"{"b":1,"a":"x","c":3}"#)
        #expect(object.removeValue(forKey: "b") == 1)
        #expect(object.jsonString() == #"{"a":"x","c":3}"#)
        object["b"] = true
        #expect(object.jsonString() == #"{"a":"x","c":3,"b":true}"#)
        object["c"] = nil
        #expect(object.jsonString() == #"{"a":"x","b":true}"#)
        object["n"] = .null
        #expect(object.jsonString() == #"{"a":"x","b":true,"n":null}"#)
        #expect(object.keys == ["a", "b", "n"])
        #expect(object.values == ["x", true, .null])
        #expect(object.count == 3)
        #expect(object.removeValue(forKey: "missing") == nil)
        #expect(object.updateValue(5, forKey: "a") == "x")
        #expect(object.updateValue(6, forKey: "z") == nil)
        #expect(object.jsonString() == #"{"a":5,"b":true,"n":null,"z":6}"#)
    }

    @Test("a repeated literal key keeps its first position and its last value, as in JavaScript")
    func duplicateLiteralKey() {
        let object: JSONObject = ["a": 1, "b": 2, "a": 3]
        #expect(object.jsonString() == #"{"a":3,"b":2}"#)
    }

    static let orderCases: [(JSONObject, String)] = [
        (["b": 1, "2": 2, "a": 3, "1": 4], #"{"1":4,"2":2,"b":1,"a":3}"#),
        (["10": 1, "9": 2, "0": 3], #"{"0":3,"9":2,"10":1}"#),
        (["01": 1, "1": 2, "-1": 3, "1.5": 4, " 1": 5], #"{"1":2,"01":1,"-1":3,"1.5":4," 1":5}"#),
        (["4294967295": 1, "4294967294": 2, "x": 3], #"{"4294967294":2,"4294967295":1,"x":3}"#),
        (["99999999999": 1, "3": 2], #"{"3":2,"99999999999":1}"#),
        (["": 1, "0": 2], #"{"0":2,"":1}"#),
    ]

    @Test("integer-like keys come first in numeric order", arguments: orderCases)
    func arrayIndexKeysFirst(_ object: JSONObject, _ expected: String) {
        #expect(object.jsonString() == expected)
    }

    @Test("iteration is insertion order even when serialization reorders")
    func iteration() {
        let object: JSONObject = ["b": 1, "2": 2, "a": 3]
        #expect(object.map(\.key) == ["b", "2", "a"])
        #expect(Array(object).map(\.value) == [1, 2, 3])
    }

    @Test("removing an integer-like key restores plain insertion order")
    func removeIndexKey() {
        var object: JSONObject = ["b": 1, "7": 2, "a": 3]
        object["7"] = nil
        #expect(object.jsonString() == #"{"b":1,"a":3}"#)
        object["7"] = 9
        #expect(object.jsonString() == #"{"7":9,"b":1,"a":3}"#)
    }

    @Test("large objects (hash-indexed) keep the same semantics")
    func largeObject() {
        var object = JSONObject()
        for index in 0..<40 {
            object["k\(index)"] = .number(Double(index))
        }
        object["k5"] = "five"
        object["k39"] = nil
        object["k0"] = nil
        for index in 1..<39 {
            let expected: JSONValue = index == 5 ? "five" : .number(Double(index))
            #expect(object["k\(index)"] == expected)
        }
        #expect(object.keys.first == "k1")
        #expect(object.keys.last == "k38")
        #expect(object.count == 38)
        while object.count > 3 {
            object[object.keys[object.count / 2]] = nil
        }
        #expect(object.keys == ["k1", "k2", "k38"])
        #expect(object["k38"] == 38)
    }

    @Test("equality depends on order")
    func equality() {
        let ab: JSONObject = ["a": 1, "b": 2]
        let ba: JSONObject = ["b": 2, "a": 1]
        #expect(ab != ba)
        #expect(ab == ["a": 1, "b": 2])
        #expect(Set([ab, ba, ["a": 1, "b": 2]]).count == 2)
    }

    @Test("nested values and literals")
    func nested() {
        let value: JSONValue = ["list": [1, "two", nil, false, ["x": []]], "empty": [:], "f": 2.5]
        #expect(value.jsonString() == #"{"list":[1,"two",null,false,{"x":[]}],"empty":{},"f":2.5}"#)
        #expect(value.description == value.jsonString())
        #expect(JSONObject().jsonString() == "{}")
        #expect(JSONObject().isEmpty)
        #expect(JSONValue.array([]).jsonString() == "[]")
    }

    @Test("random values round-trip through a strict parser", arguments: [UInt64(11), 12, 13])
    func roundTrip(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let value = Self.randomValue(depth: 0, using: &random)
            let text = value.jsonString()
            let parsed = try TestJSONParser.parse(text)
            #expect(parsed == value, "seed \(seed): \(text)")
        }
    }

    static let alphabet: [Character] = Array("ab\"\\/\n\t\u{1}\u{1F} é中😀\u{2028}")

    static func randomValue(depth: Int, using random: inout SplitMix64) -> JSONValue {
        let pick = Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &random)
        switch pick {
        case 0: return .string(randomText(using: &random))
        case 1:
            let number = Double(bitPattern: random.next())
            return .number(number.isFinite ? number : Double(Int.random(in: -1000...1000, using: &random)))
        case 2: return .bool(Bool.random(using: &random))
        case 3: return .null
        case 4:
            return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in
                randomValue(depth: depth + 1, using: &random)
            })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0..<4, using: &random) {
                // Letter-first keys, so the parsed order equals the insertion order.
                object["k" + randomText(using: &random)] = randomValue(depth: depth + 1, using: &random)
            }
            return .object(object)
        }
    }

    static func randomText(using random: inout SplitMix64) -> String {
        String((0..<Int.random(in: 0..<8, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
    }
}
