import APNTLS
import Foundation
import FuzzSupport

/// Seeds: keys, certificates and bundles made by the CA helpers, in every form each
/// parser reads (PEM, DER, PKCS#12 with and without a password, encrypted PEM).
func credentialSeeds() throws -> [(name: String, bytes: [UInt8])] {
    let authority = try CertificateAuthority()
    let client = try authority.issueClientCertificate(topic: "com.example.fuzz")
    let rsa = try authority.issueServerCertificate(keyType: .rsa2048)
    let keyPEM = try client.privateKey.pem()
    let certificatePEM = try client.certificate.pem()
    let chainPEM = certificatePEM + (try client.issuer.pem())
    let signingKey = try ES256SigningKey.generate()
    let credentials = try client.credentials()
    let seeds: [(String, CredentialParser, [UInt8])] = [
        ("key-pem", .privateKeyPEM, Array(keyPEM.utf8)),
        ("rsa-key-pem", .privateKeyPEM, Array(try rsa.privateKey.pem().utf8)),
        ("encrypted-key-pem", .encryptedPrivateKeyPEM, Array(try client.privateKey.pem(passphrase: fuzzPassword).utf8)),
        ("chain-pem", .certificatesPEM, Array(chainPEM.utf8)),
        ("rsa-certificate-pem", .certificatesPEM, Array(try rsa.certificate.pem().utf8)),
        ("key-der", .privateKeyDER, der(keyPEM)),
        ("certificate-der", .certificateDER, der(certificatePEM)),
        // One key-derivation round: a bundle read in microseconds, not in 2048 rounds' milliseconds.
        ("pkcs12", .pkcs12, try credentials.pkcs12(password: "", legacy: false, iterations: 1)),
        ("pkcs12-password", .pkcs12Password, try credentials.pkcs12(password: fuzzPassword, legacy: false, iterations: 1)),
        ("pkcs12-legacy", .pkcs12Password, try credentials.pkcs12(password: fuzzPassword, legacy: true, iterations: 1)),
        ("signing-key-pem", .signingKeyPEM, Array(signingKey.pkcs8PEM().utf8)),
        ("signing-key-der", .signingKeyDER, der(signingKey.pkcs8PEM())),
        ("verification-key-pem", .verificationKeyPEM, Array(signingKey.verificationKey.publicKeyPEM().utf8)),
        ("verification-key-der", .verificationKeyDER, der(signingKey.verificationKey.publicKeyPEM())),
        ("credentials-pem", .credentialsPEM, Array((certificatePEM + keyPEM).utf8)),
    ]
    return seeds.map { name, parser, bytes in (name, [parser.rawValue] + bytes) }
}

/// The DER inside the first PEM block of `pem`.
func der(_ pem: String) -> [UInt8] {
    let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    return [UInt8](Data(base64Encoded: body) ?? Data())
}
