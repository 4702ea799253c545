/// One topic of an Apple push certificate's topics extension (OID
/// 1.2.840.113635.100.6.3.6, carried by the certificates Apple issues for both
/// environments): a topic and the kind of push it is for.
public struct PushTopic: Sendable, Hashable {
    /// The topic, e.g. `com.example.app.voip`.
    public var topic: String
    /// What it is for: `app`, `voip`, `complication`, …
    public var kind: String

    /// A topic of `kind`.
    public init(_ topic: String, kind: String) {
        self.topic = topic
        self.kind = kind
    }

    /// The topics Apple lists for an app with this bundle id: the app, its VoIP pushes and
    /// its watch complications.
    public static func universal(bundleID: String) -> [PushTopic] {
        [PushTopic(bundleID, kind: "app"), PushTopic(bundleID + ".voip", kind: "voip"),
         PushTopic(bundleID + ".complication", kind: "complication")]
    }
}

/// The DER of the topics extension, as Apple documents its content ("Data com.example.app,
/// Data app, Data com.example.app.voip, Data voip, …"): a SEQUENCE that alternates each
/// topic (UTF8String) with a SEQUENCE holding its kind (UTF8String). Pure: no OpenSSL.
package enum PushTopicsExtension {
    /// The extension's OID.
    package static let oid = "1.2.840.113635.100.6.3.6"

    private static let sequence: UInt8 = 0x30
    private static let utf8String: UInt8 = 0x0C

    package static func encode(_ topics: [PushTopic]) -> [UInt8] {
        var content: [UInt8] = []
        for topic in topics {
            content += element(utf8String, Array(topic.topic.utf8))
            content += element(sequence, element(utf8String, Array(topic.kind.utf8)))
        }
        return element(sequence, content)
    }

    /// The topics in `der`, or `nil` when it is not that shape.
    package static func decode(_ der: [UInt8]) -> [PushTopic]? {
        var outer = DERReader(der[...])
        guard let content = outer.read(sequence), outer.isAtEnd else { return nil }
        var reader = DERReader(content)
        var topics: [PushTopic] = []
        while !reader.isAtEnd {
            guard let topic = reader.read(utf8String), let wrapped = reader.read(sequence) else { return nil }
            var inner = DERReader(wrapped)
            guard let kind = inner.read(utf8String), inner.isAtEnd else { return nil }
            topics.append(PushTopic(String(decoding: topic, as: UTF8.self), kind: String(decoding: kind, as: UTF8.self)))
        }
        return topics
    }

    /// A tag, its length (short form below 128, else long form), then `content`.
    private static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length = withUnsafeBytes(of: UInt32(content.count).bigEndian) { Array($0) }
        length.removeFirst(length.firstIndex { $0 != 0 } ?? length.count - 1)
        let header = content.count < 0x80 ? [UInt8(content.count)] : [0x80 | UInt8(length.count)] + length
        return [tag] + header + content
    }
}

/// Reads DER elements one after another, checking every length against what is left.
private struct DERReader {
    private var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        rest = bytes
    }

    var isAtEnd: Bool { rest.isEmpty }

    /// The content of the next element when its tag is `tag`; `nil` (nothing consumed)
    /// otherwise or when it runs past the end.
    mutating func read(_ tag: UInt8) -> ArraySlice<UInt8>? {
        var cursor = rest
        guard cursor.popFirst() == tag, let first = cursor.popFirst() else { return nil }
        var length = Int(first)
        if first & 0x80 != 0 {
            let count = Int(first & 0x7F)
            guard (1...4).contains(count), cursor.count >= count else { return nil }
            length = cursor.prefix(count).reduce(0) { $0 << 8 | Int($1) }
            cursor = cursor.dropFirst(count)
        }
        guard length <= cursor.count else { return nil }
        rest = cursor.dropFirst(length)
        return cursor.prefix(length)
    }
}
