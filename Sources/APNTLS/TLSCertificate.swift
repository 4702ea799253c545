public import Foundation
internal import COpenSSL
internal import Glibc

/// An X.509 certificate, owning one OpenSSL `X509`.
public final class TLSCertificate: @unchecked Sendable {
    // @unchecked Sendable: the X509 is never mutated after init (generation finishes
    // before the object is returned), and OpenSSL 3's X509 reference counting and read
    // accessors are thread-safe.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer` (one reference).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }

    /// Reads every certificate in PEM text, in order (leaf first, then the chain).
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/credentials`` when the data holds no
    ///   certificate or a certificate block is damaged.
    public static func certificates(fromPEM pem: [UInt8]) throws(TLSError) -> [TLSCertificate] {
        let bio = try MemoryBIO(reading: pem)
        var certificates: [TLSCertificate] = []
        while true {
            OpenSSLErrorQueue.clear()
            guard let x509 = PEM_read_bio_X509(bio.pointer, nil, nil, nil) else {
                let reason = OpenSSLErrorQueue.peekReason()
                if reason == PEM_R_NO_START_LINE && !certificates.isEmpty {
                    OpenSSLErrorQueue.clear()  // the normal end of the data
                    break
                }
                throw .openSSL(.credentials, "reading PEM certificate #\(certificates.count + 1)")
            }
            certificates.append(TLSCertificate(taking: x509))
        }
        return certificates
    }

    /// Reads one certificate in DER form.
    public convenience init(der: [UInt8]) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        let x509: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let x509 else { throw .openSSL(.credentials, "reading DER certificate") }
        self.init(taking: x509)
    }

    /// The certificate in PEM form ("-----BEGIN CERTIFICATE-----…").
    public func pem() throws(TLSError) -> String {
        let bio = try MemoryBIO()
        OpenSSLErrorQueue.clear()
        guard PEM_write_bio_X509(bio.pointer, pointer) == 1 else {
            throw .openSSL(.credentials, "writing certificate as PEM")
        }
        return bio.string()
    }

    /// The subject in OpenSSL's one-line RFC 2253 form, e.g. "CN=localhost".
    public var subject: String {
        guard let bio = try? MemoryBIO() else { return "" }
        X509_NAME_print_ex(bio.pointer, X509_get_subject_name(pointer), 0, capn_XN_FLAG_RFC2253())
        return bio.string()
    }

    /// The start of the validity period.
    public var notBefore: Date { Self.date(X509_get0_notBefore(pointer)) }

    /// The end of the validity period.
    public var notAfter: Date { Self.date(X509_get0_notAfter(pointer)) }

    /// Whether `notAfter` has passed.
    public var isExpired: Bool { X509_cmp_current_time(X509_get0_notAfter(pointer)) < 0 }

    /// Whether the certificate carries the extension with the given dotted OID, e.g.
    /// "1.2.840.113635.100.6.3.1" (Apple push, sandbox).
    public func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else {
            OpenSSLErrorQueue.clear()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(pointer, object, -1) >= 0
    }

    /// The topics of Apple's topics extension (OID 1.2.840.113635.100.6.3.6), in order;
    /// `nil` when the certificate has none, or it is not the shape Apple documents.
    public var pushTopics: [PushTopic]? {
        guard let object = OBJ_txt2obj(PushTopicsExtension.oid, 1) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(pointer, object, -1)
        guard index >= 0, let data = X509_EXTENSION_get_data(X509_get_ext(pointer, index)),
            let bytes = ASN1_STRING_get0_data(data)
        else { return nil }
        return PushTopicsExtension.decode(Array(UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(data)))))
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return .distantPast }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
