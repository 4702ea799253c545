import APNTLS
import Foundation
import APNTestSupport
import APNTestTraits
import Testing

/// ES256 keys: RFC 7515's vector, signing and verifying, the raw r‖s form only, .p8
/// files, and the keys ES256 must refuse.
@Suite(.threadPerTest) struct ES256KeyTests {
    @Test func theRFC7515KeyVerifiesTheRFCSignature() throws {
        #expect(Base64URL.decode(RFC7515A3.encodedSignature) == RFC7515A3.signature)
        let keys = [
            try ES256SigningKey(der: RFC7515A3.pkcs8).verificationKey,
            try ES256SigningKey(der: RFC7515A3.sec1).verificationKey,
            try ES256VerificationKey(der: RFC7515A3.subjectPublicKeyInfo),
        ]
        for key in keys {
            #expect(key.isValidSignature(RFC7515A3.signature, for: RFC7515A3.signingInput))
            #expect(key.publicKeyPEM() == keys[2].publicKeyPEM())
        }
    }

    @Test func noOneBitChangeOfTheRFCVectorVerifies() throws {
        let key = try ES256VerificationKey(der: RFC7515A3.subjectPublicKeyInfo)
        for bit in 0..<RFC7515A3.signature.count * 8 {
            var signature = RFC7515A3.signature
            signature[bit / 8] ^= 1 << (bit % 8)
            #expect(!key.isValidSignature(signature, for: RFC7515A3.signingInput), "signature bit \(bit)")
        }
        for index in RFC7515A3.signingInput.indices {
            var input = RFC7515A3.signingInput
            input[index] ^= 1
            #expect(!key.isValidSignature(RFC7515A3.signature, for: input), "signing input byte \(index)")
        }
    }

    @Test func signsWithRawSignaturesTheVerificationKeyAccepts() throws {
        let key = try ES256SigningKey.generate()
        let message = Array("a provider token's signing input".utf8)
        let first = try key.sign(message)
        let second = try key.sign(message)
        #expect(first.count == 64 && second.count == 64)
        #expect(first != second, "ECDSA draws a fresh nonce for every signature")
        #expect(key.verificationKey.isValidSignature(first, for: message))
        #expect(key.verificationKey.isValidSignature(second, for: message))
        #expect(key.verificationKey.isValidSignature(try key.sign([]), for: []))
        #expect(!key.verificationKey.isValidSignature(first, for: message + [0]))
        #expect(!(try ES256SigningKey.generate()).verificationKey.isValidSignature(first, for: message))
    }

    @Test func onlyTheRawFormVerifies() throws {
        let key = try ES256VerificationKey(der: RFC7515A3.subjectPublicKeyInfo)
        let input = RFC7515A3.signingInput
        let r = Array(RFC7515A3.signature[..<32])
        let s = Array(RFC7515A3.signature[32...])
        #expect(!key.isValidSignature(derSignature(r: r, s: s), for: input), "the same signature in DER")
        for length in [0, 1, 32, 63, 65, 72, 128] {
            let resized = Array((RFC7515A3.signature + RFC7515A3.signature).prefix(length))
            #expect(!key.isValidSignature(resized, for: input), "\(length) bytes")
        }
        #expect(!key.isValidSignature([UInt8](repeating: 0, count: 32) + s, for: input), "r = 0")
        #expect(!key.isValidSignature(r + [UInt8](repeating: 0, count: 32), for: input), "s = 0")
        #expect(!key.isValidSignature([UInt8](repeating: 0, count: 64), for: input))
        #expect(!key.isValidSignature([UInt8](repeating: 0xFF, count: 64), for: input), "r and s above the group order")
        let order = hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        #expect(!key.isValidSignature(order + s, for: input), "r = n")
    }

    @Test(arguments: 1...8)
    func randomSignaturesNeverVerifyAndNeverCrash(seed: UInt64) throws {
        let key = try ES256VerificationKey(der: RFC7515A3.subjectPublicKeyInfo)
        var generator = SplitMix64(seed: seed)
        for _ in 0..<50 {
            let length = Int.random(in: 0...80, using: &generator)
            let signature = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(!key.isValidSignature(signature, for: RFC7515A3.signingInput))
        }
    }

    @Test func aP8FileWrittenByPKCS8PEMReadsBack() throws {
        let key = try ES256SigningKey.generate()
        let pem = key.pkcs8PEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey_\(UUID().uuidString.prefix(10)).p8").path
        try Data(pem.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try ES256SigningKey(p8File: path)
        #expect(read.pkcs8PEM() == pem)
        #expect(read.verificationKey.publicKeyPEM() == key.verificationKey.publicKeyPEM())
        let message = Array("signed by the key read back".utf8)
        #expect(key.verificationKey.isValidSignature(try read.sign(message), for: message))
    }

    @Test func theRFC7515KeyWritesTheSameP8AsItsPKCS8() throws {
        let pem = try ES256SigningKey(der: RFC7515A3.sec1).pkcs8PEM()
        let body = pem.split(separator: "\n").dropFirst().dropLast().joined()
        #expect(Data(base64Encoded: body).map(Array.init) == RFC7515A3.pkcs8)
    }

    @Test func publicKeysReadFromPEM() throws {
        let key = try ES256SigningKey.generate()
        let publicPEM = key.verificationKey.publicKeyPEM()
        #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        let fromPublic = try ES256VerificationKey(pem: Array(publicPEM.utf8))
        let fromPrivate = try ES256VerificationKey(pem: Array(key.pkcs8PEM().utf8))
        #expect(fromPublic.publicKeyPEM() == publicPEM)
        #expect(fromPrivate.publicKeyPEM() == publicPEM)
        let message: [UInt8] = [1, 2, 3]
        #expect(fromPublic.isValidSignature(try key.sign(message), for: message))
    }

    @Test func rsaKeysAreRefused() throws {
        let rsaPEM = Array(try CertificateAuthority(keyType: .rsa2048).privateKey.pem().utf8)
        let signing = #expect(throws: TLSError.self) { try ES256SigningKey(pem: rsaPEM) }
        #expect(signing?.kind == .wrongKeyType)
        #expect(signing?.context.contains("RSA key of 2048 bits") == true, "\(String(describing: signing))")
        #expect(signing?.description.contains("AuthKey_") == true, "the hint")
        let verification = #expect(throws: TLSError.self) { try ES256VerificationKey(pem: rsaPEM) }
        #expect(verification?.kind == .wrongKeyType)
    }

    @Test func p384KeysAreRefused() throws {
        let signing = #expect(throws: TLSError.self) { try ES256SigningKey(der: P384Key.pkcs8) }
        #expect(signing?.kind == .wrongKeyType)
        #expect(signing?.context.contains("secp384r1") == true, "\(String(describing: signing))")
        let verification = #expect(throws: TLSError.self) {
            try ES256VerificationKey(der: P384Key.subjectPublicKeyInfo)
        }
        #expect(verification?.kind == .wrongKeyType)
    }

    @Test func aP8FileWithAnRSAKeyNamesThePath() throws {
        let pem = try CertificateAuthority(keyType: .rsa2048).privateKey.pem()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey_RSA\(UUID().uuidString.prefix(7)).p8").path
        try Data(pem.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: TLSError.self) { try ES256SigningKey(p8File: path) }
        #expect(error?.kind == .wrongKeyType)
        #expect(error?.path == path)
    }

    @Test func aMissingP8FileNamesThePath() {
        let error = #expect(throws: TLSError.self) { try ES256SigningKey(p8File: "/nonexistent/AuthKey_ABC123DEFG.p8") }
        #expect(error?.kind == .fileNotFound)
        #expect(error?.path == "/nonexistent/AuthKey_ABC123DEFG.p8")
    }

    @Test func unreadableKeysAreCredentialErrors() {
        let garbage: [[UInt8]] = [[], Array("not a key".utf8), Array(RFC7515A3.pkcs8.dropLast()), [0x30, 0x00]]
        for bytes in garbage {
            #expect((#expect(throws: TLSError.self) { try ES256SigningKey(der: bytes) })?.kind == .credentials)
            #expect((#expect(throws: TLSError.self) { try ES256SigningKey(pem: bytes) })?.kind == .credentials)
            #expect((#expect(throws: TLSError.self) { try ES256VerificationKey(der: bytes) })?.kind == .credentials)
            #expect((#expect(throws: TLSError.self) { try ES256VerificationKey(pem: bytes) })?.kind == .credentials)
        }
        let trailing = RFC7515A3.subjectPublicKeyInfo + [0]
        #expect((#expect(throws: TLSError.self) { try ES256VerificationKey(der: trailing) })?.kind == .credentials)
    }
}

/// An ECDSA-Sig-Value in DER: SEQUENCE { INTEGER r, INTEGER s } (short lengths only).
private func derSignature(r: [UInt8], s: [UInt8]) -> [UInt8] {
    func integer(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.first.map({ $0 >= 0x80 }) ?? true { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(r) + integer(s)
    return [0x30, UInt8(body.count)] + body
}
