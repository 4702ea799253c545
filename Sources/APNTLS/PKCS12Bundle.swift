import APNSupport
internal import COpenSSL
internal import Synchronization

/// Owns one OpenSSL `PKCS12` structure: a parsed or freshly created PKCS#12 bundle.
package final class PKCS12Bundle {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        PKCS12_free(pointer)
    }

    /// Parses DER-encoded PKCS#12 data (the contents of a .p12 or .pfx file).
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/credentials`` when the bytes are not PKCS#12.
    convenience init(der: [UInt8]) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            throw .openSSL(.credentials, "reading PKCS#12 data (\(der.count) bytes): not a DER-encoded PKCS#12 bundle")
        }
        self.init(taking: parsed)
    }

    /// A new bundle (`PKCS12_create`) protected by `password`. ``TLSCredentials`` always
    /// passes a key and a certificate; either may be left out to build malformed bundles in tests.
    ///
    /// - Parameters:
    ///   - legacy: RC2-40 certificates, 3DES key, SHA-1 MAC (loads the legacy provider);
    ///     otherwise OpenSSL 3's defaults (AES-256-CBC, PBKDF2, SHA-256 MAC).
    ///   - iterations: the key-derivation and MAC iteration count; `nil` is OpenSSL's
    ///     default, 2048. The fuzzing seeds use 1, so that reading a bundle costs
    ///     microseconds rather than milliseconds.
    package convenience init(
        password: String, privateKey: TLSPrivateKey?, certificate: TLSCertificate?, chain: [TLSCertificate],
        legacy: Bool, iterations: Int32? = nil
    ) throws(TLSError) {
        if legacy {
            try LegacyProvider.load()
        }
        let others = try CertificateStack(chain)
        let created: OpaquePointer? = withSecret(password) { secret in
            OpenSSLErrorQueue.clear()
            return PKCS12_create(
                secret, nil, privateKey?.pointer, certificate?.pointer, chain.isEmpty ? nil : others.pointer,
                legacy ? NID_pbe_WithSHA1And3_Key_TripleDES_CBC : 0,
                legacy ? NID_pbe_WithSHA1And40BitRC2_CBC : 0,
                iterations ?? 0,  // 0: the default iteration count, PKCS12_DEFAULT_ITER (2048)
                legacy ? -1 : iterations ?? 0,  // legacy: no MAC yet, a SHA-1 one is set below
                0)
        }
        let subject = certificate?.subject ?? "a key"
        guard let created else {
            throw .openSSL(.credentials, "creating a \(legacy ? "legacy" : "modern") PKCS#12 bundle for \(subject)")
        }
        self.init(taking: created)
        if legacy {
            let macSet = withSecret(password) { secret in
                OpenSSLErrorQueue.clear()
                return PKCS12_set_mac(pointer, secret, -1, nil, 0, iterations ?? PKCS12_DEFAULT_ITER, EVP_sha1())
            }
            guard macSet == 1 else { throw .openSSL(.credentials, "adding a SHA-1 MAC to the PKCS#12 bundle") }
        }
    }

    /// The DER encoding, as written to a .p12 file.
    package func der() throws(TLSError) -> [UInt8] {
        let bio = try MemoryBIO()
        OpenSSLErrorQueue.clear()
        guard i2d_PKCS12_bio(bio.pointer, pointer) == 1 else {
            throw .openSSL(.credentials, "encoding the PKCS#12 bundle")
        }
        return bio.contents()
    }
}

/// Owns one OpenSSL `STACK_OF(X509)` and a reference to each certificate in it; both are
/// freed in `deinit` with `sk_X509_pop_free`.
final class CertificateStack {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer` and of the certificate references it holds.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A new stack holding a reference to each of `certificates`, in order.
    convenience init(_ certificates: [TLSCertificate]) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let stack = capn_sk_X509_new_null() else {
            throw .openSSL(.credentials, "allocating a certificate stack")
        }
        self.init(taking: stack)
        for certificate in certificates {
            X509_up_ref(certificate.pointer)
            guard capn_sk_X509_push(stack, certificate.pointer) > 0 else {
                X509_free(certificate.pointer)
                throw .openSSL(.credentials, "adding \(certificate.subject) to a certificate stack")
            }
        }
    }

    deinit {
        capn_sk_X509_pop_free(pointer)
    }

    /// The certificates, each wrapped with its own reference.
    var certificates: [TLSCertificate] {
        (0..<capn_sk_X509_num(pointer)).compactMap { index in
            guard let x509 = capn_sk_X509_value(pointer, index) else { return nil }
            X509_up_ref(x509)
            return TLSCertificate(taking: x509)
        }
    }
}

/// OpenSSL 3 keeps RC2, RC4 and single DES in its "legacy" provider, which is not loaded
/// by default; PKCS#12 files from older tools (macOS Keychain exports, `openssl pkcs12`
/// before 3.0, the files node-apn users kept) encrypt their certificates with RC2-40.
package enum LegacyProvider {
    /// Loads the "default" and "legacy" providers into the default library context, once
    /// per process. "default" is loaded explicitly because loading any provider by hand
    /// stops OpenSSL from loading it implicitly. Both stay loaded for the life of the process.
    ///
    /// - Returns: whether this call loaded them (`false`: an earlier call already had).
    @discardableResult
    package static func load() throws(TLSError) -> Bool {
        try loaded.withLock { (loaded: inout [LoadedProvider]) throws(TLSError) -> Bool in
            if loaded.count == 2 { return false }
            for name in ["default", "legacy"].dropFirst(loaded.count) {
                OpenSSLErrorQueue.clear()
                guard let provider = OSSL_PROVIDER_load(nil, name) else {
                    throw .openSSL(
                        .credentials,
                        "loading OpenSSL's \"\(name)\" provider, needed for legacy RC2 PKCS#12 bundles "
                            + "(is OpenSSL's ossl-modules/\(name).so installed?)")
                }
                loaded.append(LoadedProvider(pointer: provider))
            }
            return true
        }
    }

    /// How many providers this process loaded and keeps: 2 once ``load()`` ran.
    package static var loadedCount: Int { loaded.withLock { $0.count } }

    /// The providers this process loaded, kept so they stay reachable: they are never
    /// unloaded, and a provider whose handle nobody holds is what a leak checker reports
    /// (LeakSanitizer did, at the exit of every fuzzing process that met a legacy bundle).
    /// Guarded so two threads never load them twice.
    private static let loaded = Lock([LoadedProvider]())

    /// A handle `OSSL_PROVIDER_load` returned.
    private struct LoadedProvider: @unchecked Sendable {
        // @unchecked: the handle is only stored, never used again; OpenSSL's provider
        // objects are themselves safe to share between threads.
        let pointer: OpaquePointer
    }
}
