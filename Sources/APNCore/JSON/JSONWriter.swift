import APNSupport
/// Appends JSON to a byte array, exactly as JavaScript's `JSON.stringify` writes it:
/// no whitespace, objects in JavaScript property order (see ``JSONObject``), numbers per
/// ``JSNumberFormat``, strings per ``JSONStringEscaping``.
///
/// It writes straight into `bytes`; no intermediate `String` is built per value.
struct JSONWriter {
    /// The JSON written so far, UTF-8.
    var bytes: [UInt8]

    /// A writer with an empty buffer of at least `capacity` bytes.
    init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends any value.
    mutating func write(_ value: JSONValue) {
        switch value {
        case .string(let string):
            write(string: string)
        case .number(let number):
            JSNumberFormat.appendJSON(number, to: &bytes)
        case .bool(let flag):
            write(bool: flag)
        case .null:
            bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])  // null
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 {
                    bytes.append(UInt8(ascii: ","))
                }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            write(object)
        }
    }

    /// Appends an object, its keys in JavaScript property order.
    mutating func write(_ object: JSONObject) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        writeMembers(of: object, first: &first)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Appends the `"key":value` pairs of `object`, in JavaScript property order, into an
    /// object already opened. `first` tracks whether a comma is needed.
    mutating func writeMembers(of object: JSONObject, first: inout Bool) {
        var isFirst = first
        object.forEachInPropertyOrder { key, value in
            writeKey(key, first: &isFirst)
            write(value)
        }
        first = isFirst
    }

    /// Appends `,"key":` (no comma for the first member of an object).
    mutating func writeKey(_ key: String, first: inout Bool) {
        if !first {
            bytes.append(UInt8(ascii: ","))
        }
        first = false
        write(string: key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends a quoted, escaped string.
    mutating func write(string: String) {
        bytes.append(UInt8(ascii: "\""))
        JSONStringEscaping.appendEscaped(string, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `true` or `false`.
    mutating func write(bool: Bool) {
        if bool {
            bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65])  // true
        } else {
            bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])  // false
        }
    }
}
