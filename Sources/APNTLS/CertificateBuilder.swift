internal import COpenSSL
internal import Glibc

/// Builds and signs one X.509 v3 certificate. Internal: ``CertificateAuthority`` is the
/// public way to make certificates.
struct CertificateBuilder {
    /// Subject name entries in order, e.g. [("UID", topic), ("CN", "Apple Push Services: …")].
    var subject: [(field: String, value: String)]
    var validity: CertificateValidity
    /// Extensions in OpenSSL's config syntax, by NID: (NID_basic_constraints, "critical,CA:TRUE").
    var extensions: [(nid: Int32, value: String)]
    /// Custom non-critical extensions by dotted OID, with the DER of their value: DER NULL
    /// (05 00) for Apple's push environment markers.
    var customExtensions: [(oid: String, der: [UInt8])] = []

    /// A certificate for `subjectKey`, signed with `issuerKey` under `issuer`'s name
    /// (self-signed when `issuer` is nil).
    func sign(
        subjectKey: TLSPrivateKey, issuer: TLSCertificate?, issuerKey: TLSPrivateKey
    ) throws(TLSError) -> TLSCertificate {
        OpenSSLErrorQueue.clear()
        guard let x509 = X509_new() else { throw .openSSL(.certificateGeneration, "allocating a certificate") }
        let certificate = TLSCertificate(taking: x509)
        func check(_ ok: Bool, _ step: String) throws(TLSError) {
            if !ok { throw .openSSL(.certificateGeneration, step) }
        }
        try check(X509_set_version(x509, 2) == 1, "setting version 3")
        try setRandomSerial(x509)
        let now = time(nil)
        try check(ASN1_TIME_set(X509_getm_notBefore(x509), now + time_t(validity.notBeforeOffset)) != nil, "setting notBefore")
        try check(ASN1_TIME_set(X509_getm_notAfter(x509), now + time_t(validity.notAfterOffset)) != nil, "setting notAfter")
        let name = X509_get_subject_name(x509)
        for entry in subject {
            try check(
                X509_NAME_add_entry_by_txt(name, entry.field, capn_MBSTRING_UTF8(), entry.value, -1, -1, 0) == 1,
                "adding subject \(entry.field)=\(entry.value)")
        }
        let issuerName = issuer.map { X509_get_subject_name($0.pointer) } ?? name
        try check(X509_set_issuer_name(x509, issuerName) == 1, "setting the issuer name")
        try check(X509_set_pubkey(x509, subjectKey.pointer) == 1, "setting the public key")
        try addExtensions(to: x509, issuer: issuer?.pointer ?? x509)
        try check(X509_sign(x509, issuerKey.pointer, EVP_sha256()) > 0, "signing the certificate")
        return certificate
    }

    private func setRandomSerial(_ x509: OpaquePointer) throws(TLSError) {
        guard let number = BN_new() else { throw .openSSL(.certificateGeneration, "allocating the serial number") }
        defer { BN_free(number) }
        guard BN_rand(number, 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1,
            BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x509)) != nil
        else { throw .openSSL(.certificateGeneration, "setting a random serial number") }
    }

    private func addExtensions(to x509: OpaquePointer, issuer: OpaquePointer) throws(TLSError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer, x509, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                throw .openSSL(.certificateGeneration, "building extension \(String(cString: OBJ_nid2sn(nid))) = \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else {
                throw .openSSL(.certificateGeneration, "adding extension \(value)")
            }
        }
        for (oid, der) in customExtensions {
            try addCustom(oid: oid, der: der, to: x509)
        }
    }

    /// A non-critical extension whose value is `der`.
    private func addCustom(oid: String, der: [UInt8], to x509: OpaquePointer) throws(TLSError) {
        guard let object = OBJ_txt2obj(oid, 1) else { throw .openSSL(.certificateGeneration, "parsing OID \(oid)") }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else { throw .openSSL(.certificateGeneration, "allocating \(oid)") }
        defer { ASN1_OCTET_STRING_free(value) }
        guard ASN1_OCTET_STRING_set(value, der, Int32(der.count)) == 1,
            let ext = X509_EXTENSION_create_by_OBJ(nil, object, 0, value)
        else { throw .openSSL(.certificateGeneration, "building extension \(oid)") }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(x509, ext, -1) == 1 else { throw .openSSL(.certificateGeneration, "adding extension \(oid)") }
    }
}
