internal import COpenSSL

/// The kind of key generated for a certificate.
public struct KeyType: Sendable, Hashable, CustomStringConvertible {
    private enum Base: Sendable, Hashable {
        case p256, rsa(bits: UInt32)
    }

    private let base: Base

    /// ECDSA on NIST P-256: fast to generate, the default.
    public static let p256 = KeyType(base: .p256)
    /// RSA with a 2048-bit modulus, as Apple's push certificates use.
    public static let rsa2048 = KeyType(base: .rsa(bits: 2048))

    /// "P-256" or "RSA-2048".
    public var description: String {
        switch base {
        case .p256: "P-256"
        case .rsa(let bits): "RSA-\(bits)"
        }
    }

    /// A freshly generated key of this type.
    func generate() throws(TLSError) -> TLSPrivateKey {
        OpenSSLErrorQueue.clear()
        let key: OpaquePointer? =
            switch base {
            case .p256: capn_EVP_EC_gen_P256()
            case .rsa(let bits): capn_EVP_RSA_gen(bits)
            }
        guard let key else { throw .openSSL(.certificateGeneration, "generating a \(self) key") }
        return TLSPrivateKey(taking: key)
    }
}
