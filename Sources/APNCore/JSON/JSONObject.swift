/// A JSON object whose keys keep their order, with JavaScript's rules.
///
/// - New keys go to the end; assigning a key that exists replaces its value in place;
///   assigning `nil` through the subscript (or ``removeValue(forKey:)``) deletes the key.
///   A dictionary literal with a repeated key keeps the first position and the last value,
///   as a JavaScript object literal does.
/// - Iterating yields the entries in insertion order.
/// - Serialization follows JavaScript's property order: keys that are canonical array
///   indices (`"0"`, `"1"`, … `"4294967294"`, no leading zeros) come first in ascending
///   numeric order, then every other key in insertion order. So `{"b":1,"2":2,"a":3,"1":4}`
///   is written `{"1":4,"2":2,"b":1,"a":3}`, exactly as `JSON.stringify` writes it.
///
/// Two objects are equal when they hold the same keys, in the same insertion order, with
/// equal values.
public struct JSONObject: Hashable, Sendable, ExpressibleByDictionaryLiteral, Sequence {
    /// An entry: a key and its value.
    public typealias Element = (key: String, value: JSONValue)

    /// Objects with more keys than this get a hash index; smaller ones are searched.
    private static let indexThreshold = 16

    private var storedKeys: [String] = []
    private var storedValues: [JSONValue] = []
    /// Position of each key; built only for objects above `indexThreshold` keys.
    private var positions: [String: Int]? = nil
    /// How many keys are canonical array indices (they serialize first).
    private(set) var arrayIndexKeyCount = 0

    /// An empty object.
    public init() {}

    /// An object with the literal's entries, in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements {
            self[key] = value
        }
    }

    /// The number of keys.
    public var count: Int { storedKeys.count }

    /// Whether the object has no keys.
    public var isEmpty: Bool { storedKeys.isEmpty }

    /// The keys in insertion order.
    public var keys: [String] { storedKeys }

    /// The values in insertion order.
    public var values: [JSONValue] { storedValues }

    /// The value for `key`, or `nil` when absent. Setting a value keeps an existing key's
    /// position and appends a new key; setting `nil` removes the key. To store JSON `null`,
    /// assign `.null`.
    public subscript(key: String) -> JSONValue? {
        get {
            position(of: key).map { storedValues[$0] }
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Sets the value for `key`, keeping its position if it exists.
    ///
    /// - Returns: The value that was replaced, or `nil` if the key is new.
    @discardableResult
    public mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        if let position = position(of: key) {
            let old = storedValues[position]
            storedValues[position] = value
            return old
        }
        storedKeys.append(key)
        storedValues.append(value)
        if ArrayIndexKey.value(of: key) != nil {
            arrayIndexKeyCount += 1
        }
        if positions != nil {
            positions?[key] = storedKeys.count - 1
        } else if storedKeys.count > Self.indexThreshold {
            rebuildIndex()
        }
        return nil
    }

    /// Removes `key` and its value; later keys move up one place.
    ///
    /// - Returns: The removed value, or `nil` if the key was absent.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = position(of: key) else {
            return nil
        }
        storedKeys.remove(at: position)
        let old = storedValues.remove(at: position)
        if ArrayIndexKey.value(of: key) != nil {
            arrayIndexKeyCount -= 1
        }
        if positions != nil {
            if storedKeys.count > Self.indexThreshold {
                rebuildIndex()
            } else {
                positions = nil
            }
        }
        return old
    }

    /// Iterates the entries in insertion order.
    public func makeIterator() -> Iterator {
        Iterator(object: self)
    }

    /// Iterates a ``JSONObject``'s entries in insertion order.
    public struct Iterator: IteratorProtocol {
        private let object: JSONObject
        private var index = 0

        fileprivate init(object: JSONObject) {
            self.object = object
        }

        /// The next entry, or `nil` after the last.
        public mutating func next() -> Element? {
            guard index < object.storedKeys.count else {
                return nil
            }
            defer { index += 1 }
            return (object.storedKeys[index], object.storedValues[index])
        }
    }

    /// The number of keys; lets `Array(object)` allocate once.
    public var underestimatedCount: Int { count }

    /// The object as JSON text, as `JSON.stringify(object)` gives it.
    public func jsonString() -> String {
        JSONValue.object(self).jsonString()
    }

    /// The object as UTF-8 JSON bytes.
    public func jsonBytes() -> [UInt8] {
        JSONValue.object(self).jsonBytes()
    }

    /// Calls `body` for each entry in JavaScript's property order: array-index keys in
    /// ascending numeric order, then the other keys in insertion order.
    func forEachInPropertyOrder(_ body: (String, JSONValue) -> Void) {
        if arrayIndexKeyCount == 0 {
            for index in storedKeys.indices {
                body(storedKeys[index], storedValues[index])
            }
            return
        }
        var indexed: [(value: UInt32, position: Int)] = []
        indexed.reserveCapacity(arrayIndexKeyCount)
        for (position, key) in storedKeys.enumerated() {
            if let value = ArrayIndexKey.value(of: key) {
                indexed.append((value, position))
            }
        }
        indexed.sort { $0.value < $1.value }
        for entry in indexed {
            body(storedKeys[entry.position], storedValues[entry.position])
        }
        for (position, key) in storedKeys.enumerated() where ArrayIndexKey.value(of: key) == nil {
            body(key, storedValues[position])
        }
    }

    private func position(of key: String) -> Int? {
        if let positions {
            return positions[key]
        }
        return storedKeys.firstIndex(of: key)
    }

    private mutating func rebuildIndex() {
        var index: [String: Int] = [:]
        index.reserveCapacity(storedKeys.count)
        for (position, key) in storedKeys.enumerated() {
            index[key] = position
        }
        positions = index
    }

    /// Equal when the keys, their order and the values are equal.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.storedKeys == rhs.storedKeys && lhs.storedValues == rhs.storedValues
    }

    /// Hashes the keys in order and the values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storedKeys)
        hasher.combine(storedValues)
    }
}

extension JSONObject: CustomStringConvertible {
    /// The object as JSON text.
    public var description: String {
        jsonString()
    }
}

/// JavaScript's "array index" property keys, which objects enumerate first.
enum ArrayIndexKey {
    /// The largest array index: 2^32 − 2.
    static let maximum: UInt64 = 4_294_967_294

    /// The key's numeric value if it is a canonical array index: `"0"`, or a digit 1–9
    /// followed by digits, at most 4294967294. `"01"`, `"-1"`, `"1.0"` and `""` are not.
    static func value(of key: String) -> UInt32? {
        let utf8 = key.utf8
        guard let first = utf8.first, utf8.count <= 10 else {
            return nil
        }
        if first == UInt8(ascii: "0") {
            return utf8.count == 1 ? 0 : nil
        }
        var value: UInt64 = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                return nil
            }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value <= maximum ? UInt32(value) : nil
    }
}
