/// Why JSON text could not be read, and where: ``kind`` and the zero-based byte ``offset``
/// in the UTF-8 input at which the problem was found.
///
/// A struct wrapping a private enum, so that new kinds can be added without breaking code
/// that switches over them: compare ``kind`` with the `static let` values of
/// ``JSONParseError/Kind``.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the text.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Raw: Hashable, Sendable {
            case unexpectedEnd
            case unexpectedByte
            case invalidLiteral
            case invalidNumber
            case invalidEscape
            case loneSurrogate
            case controlCharacter
            case invalidUTF8
            case trailingData
            case duplicateKey
            case tooDeep
            case tooLarge
            case notAnObject
        }

        private let raw: Raw

        private init(_ raw: Raw) {
            self.raw = raw
        }

        /// The text ends inside a value (or is empty).
        public static let unexpectedEnd = Kind(.unexpectedEnd)
        /// A byte that cannot start or continue what is being read here.
        public static let unexpectedByte = Kind(.unexpectedByte)
        /// Something that starts like `true`, `false` or `null` but is not.
        public static let invalidLiteral = Kind(.invalidLiteral)
        /// A number outside JSON's grammar: `01`, `1.`, `.5`, `+1`, `1e`, `-`.
        public static let invalidNumber = Kind(.invalidNumber)
        /// A backslash escape JSON does not have (`\x`, `\u12` …).
        public static let invalidEscape = Kind(.invalidEscape)
        /// A `\uD800`–`\uDFFF` escape that is not half of a surrogate pair: no Swift string
        /// (and no UTF-8) can hold it.
        public static let loneSurrogate = Kind(.loneSurrogate)
        /// A raw control character (U+0000–U+001F) inside a string; JSON requires an escape.
        public static let controlCharacter = Kind(.controlCharacter)
        /// Bytes that are not well-formed UTF-8 (overlong forms, surrogates, truncated or
        /// stray continuation bytes, values above U+10FFFF).
        public static let invalidUTF8 = Kind(.invalidUTF8)
        /// More than whitespace after the value.
        public static let trailingData = Kind(.trailingData)
        /// An object names the same key twice; which value counts would be up to the reader.
        /// Keys compare as Swift strings (and ``JSONObject``'s keys) do, by canonical
        /// equivalence: `"é"` precomposed and decomposed are the same key here, though their
        /// bytes differ.
        public static let duplicateKey = Kind(.duplicateKey)
        /// Arrays and objects nested deeper than ``JSONParser/maximumDepth``.
        public static let tooDeep = Kind(.tooDeep)
        /// The text is longer than ``JSONParser/maximumSize`` bytes.
        public static let tooLarge = Kind(.tooLarge)
        /// The text is valid JSON but not an object where one is required.
        public static let notAnObject = Kind(.notAnObject)

        /// The kind's name, e.g. `invalidNumber`.
        public var description: String {
            switch raw {
            case .unexpectedEnd: "unexpectedEnd"
            case .unexpectedByte: "unexpectedByte"
            case .invalidLiteral: "invalidLiteral"
            case .invalidNumber: "invalidNumber"
            case .invalidEscape: "invalidEscape"
            case .loneSurrogate: "loneSurrogate"
            case .controlCharacter: "controlCharacter"
            case .invalidUTF8: "invalidUTF8"
            case .trailingData: "trailingData"
            case .duplicateKey: "duplicateKey"
            case .tooDeep: "tooDeep"
            case .tooLarge: "tooLarge"
            case .notAnObject: "notAnObject"
            }
        }
    }

    /// What is wrong.
    public let kind: Kind
    /// The zero-based byte offset in the UTF-8 text where the problem was found.
    public let offset: Int
    /// A short explanation, e.g. `expected ',' or '}' after an object member`.
    public let message: String

    /// Creates an error; the parser makes these, tests and adapters may too.
    public init(kind: Kind, offset: Int, message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    /// `invalidNumber at byte 12: leading zeros are not allowed`.
    public var description: String {
        "\(kind) at byte \(offset): \(message)"
    }
}
