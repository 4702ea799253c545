import APNTLS

/// The topic a push client certificate names, as Apple's do: the `UID` attribute of its
/// subject (``CertificateAuthority/issueClientCertificate(topic:environments:keyType:validity:)``
/// writes `UID=<topic>`).
package enum CertificateTopics {
    /// The `UID` of `certificate`'s subject, if it has one.
    static func userID(of certificate: TLSCertificate) -> String? {
        userID(inSubject: certificate.subject)
    }

    /// The `UID` value in a subject written as RFC 2253 (`CN=…,UID=com.example.app`):
    /// attributes are separated by unescaped `,` or `+`, and a backslash escapes the
    /// character after it.
    package static func userID(inSubject subject: String) -> String? {
        var attribute: [UInt8] = []
        var escaped = false
        for byte in subject.utf8 {
            if escaped {
                attribute.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "+") {
                if let value = value(of: attribute) { return value }
                attribute.removeAll(keepingCapacity: true)
            } else {
                attribute.append(byte)
            }
        }
        return value(of: attribute)
    }

    private static func value(of attribute: [UInt8]) -> String? {
        let prefix = Array("UID=".utf8)
        guard attribute.starts(with: prefix) else { return nil }
        return String(decoding: attribute.dropFirst(prefix.count), as: UTF8.self)
    }
}
