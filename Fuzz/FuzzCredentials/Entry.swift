import APNTLS
import FuzzSupport

/// The parsers `FuzzCredentials` drives, chosen by the input's first byte.
enum CredentialParser: UInt8, CaseIterable {
    case privateKeyPEM, encryptedPrivateKeyPEM, certificatesPEM, privateKeyDER, certificateDER
    case pkcs12, pkcs12Password, signingKeyPEM, signingKeyDER, verificationKeyPEM, verificationKeyDER
    case credentialsPEM
}

/// The password the encrypted seeds use.
let fuzzPassword = "fuzz"

/// libFuzzer's entry: byte 0 picks a parser (modulo their count), the rest is its input.
/// Errors are the expected outcome; what parses is also used (written back, signed with).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCredentials(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let parser = CredentialParser.allCases[Int(input.byte()) % CredentialParser.allCases.count]
    let data = input.rest()
    do {
        switch parser {
        case .privateKeyPEM: _ = try TLSPrivateKey(pem: data).pem()
        case .encryptedPrivateKeyPEM: _ = try TLSPrivateKey(pem: data, passphrase: fuzzPassword).pem()
        case .certificatesPEM: try use(TLSCertificate.certificates(fromPEM: data))
        case .privateKeyDER: _ = try TLSPrivateKey(der: data).pem()
        case .certificateDER: try use([TLSCertificate(der: data)])
        case .pkcs12: try use(TLSCredentials(pkcs12: data, allowsExpired: true))
        case .pkcs12Password: try use(TLSCredentials(pkcs12: data, password: fuzzPassword, allowsExpired: true))
        case .signingKeyPEM: try use(ES256SigningKey(pem: data))
        case .signingKeyDER: try use(ES256SigningKey(der: data))
        case .verificationKeyPEM: _ = try ES256VerificationKey(pem: data).publicKeyPEM()
        case .verificationKeyDER: _ = try ES256VerificationKey(der: data).publicKeyPEM()
        case .credentialsPEM: try use(TLSCredentials(certificatePEM: data, keyPEM: data, allowsExpired: true))
        }
    } catch {
        _ = "\(error)"
    }
    return 0
}

/// Reads every accessor of parsed certificates.
func use(_ certificates: [TLSCertificate]) throws(TLSError) {
    for certificate in certificates {
        _ = (certificate.subject, certificate.notBefore, certificate.notAfter, certificate.isExpired)
        _ = certificate.hasExtension(oid: "1.2.840.113635.100.6.3.1")
        _ = try certificate.pem()
    }
}

/// Writes parsed credentials back out.
func use(_ credentials: TLSCredentials) throws(TLSError) {
    try use([credentials.certificate] + credentials.chain)
    _ = try credentials.privateKey.pem()
}

/// Signs with a parsed key and checks the signature with its public half.
func use(_ key: ES256SigningKey) throws(TLSError) {
    let message = Array("fuzz".utf8)
    let signature = try key.sign(message)
    precondition(key.verificationKey.isValidSignature(signature, for: message), "own signature refused")
}
