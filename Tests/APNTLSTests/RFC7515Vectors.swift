import APNTestSupport

/// RFC 7515 Appendix A.3, "Example JWS Using ECDSA P-256 SHA-256".
///
/// The RFC gives the key as a JWK (d, x, y). The DER forms below were built once from that
/// JWK with Python's `cryptography` package (`ec.derive_private_key(d, SECP256R1())`, whose
/// public point matched the JWK's x and y) and pasted here as literals.
enum RFC7515A3 {
    /// PKCS#8 PrivateKeyInfo: d = 8e9b109e…df84f4b2, public point 04‖x‖y.
    static let pkcs8 = hex(
        """
        308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420
        8e9b109e719098bf980487df1f5d77e9cb29606ebed2263b5f57c213df84f4b2
        a14403420004
        7fcdce2770f6c45d4183cbee6fdb4b7b580733357be9ef13bacf6e3c7bd15445
        c7f144cd1bbd9b7e872cdfedb9eeb9f4b3695d6ea90b24ad8a4623288588e5ad
        """)

    /// The same key as SEC1 ECPrivateKey ("EC PRIVATE KEY"), with the curve's OID.
    static let sec1 = hex(
        """
        307702010104208e9b109e719098bf980487df1f5d77e9cb29606ebed2263b5f57c213df84f4b2
        a00a06082a8648ce3d030107a14403420004
        7fcdce2770f6c45d4183cbee6fdb4b7b580733357be9ef13bacf6e3c7bd15445
        c7f144cd1bbd9b7e872cdfedb9eeb9f4b3695d6ea90b24ad8a4623288588e5ad
        """)

    /// The public key as a SubjectPublicKeyInfo.
    static let subjectPublicKeyInfo = hex(
        """
        3059301306072a8648ce3d020106082a8648ce3d03010703420004
        7fcdce2770f6c45d4183cbee6fdb4b7b580733357be9ef13bacf6e3c7bd15445
        c7f144cd1bbd9b7e872cdfedb9eeb9f4b3695d6ea90b24ad8a4623288588e5ad
        """)

    /// The JWS Protected Header `{"alg":"ES256"}`, base64url.
    static let header = "eyJhbGciOiJFUzI1NiJ9"
    /// The payload `{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}`, base64url.
    static let payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    /// The signature as the RFC prints it, base64url.
    static let encodedSignature = "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    /// The same signature, r‖s.
    static let signature = hex(
        """
        0ed1215379636c483c2f7f155807d402a3b228033af97c7e17819ac3169ea665
        c50a07d38c3c70e5d8f12daf084a5480a66590c5f293509a8f3f7f8a83a354d5
        """)

    /// The JWS Signing Input: header "." payload.
    static var signingInput: [UInt8] { Array((header + "." + payload).utf8) }
    /// The JWS Compact Serialization.
    static var token: String { header + "." + payload + "." + encodedSignature }
}

/// A NIST P-384 key (generated once with Python's `cryptography`), which ES256 must refuse.
enum P384Key {
    static let pkcs8 = hex(
        """
        3081b6020100301006072a8648ce3d020106052b8104002204819e30819b020101043013578de8097c3cf266278888d0
        289336754ab7d2e17fa3428267e8b0dedacbfdfc36fa7a1d6ec92260db87ec5cc3aa08a16403620004309b5a009c3be9
        2cec986e2f26eca5bd4477a8099d3366f7d4cc23578c1757249b8bf90848cd413bf2bad1c78d2e68f41427823b0de879
        474afcdd21f208872f61492558503adaf1ff1d8710182f1b5d5e3a46953c5d7c1b9bcb912192d8d6b1
        """)

    static let subjectPublicKeyInfo = hex(
        """
        3076301006072a8648ce3d020106052b8104002203620004309b5a009c3be92cec986e2f26eca5bd4477a8099d3366f7
        d4cc23578c1757249b8bf90848cd413bf2bad1c78d2e68f41427823b0de879474afcdd21f208872f61492558503adaf1
        ff1d8710182f1b5d5e3a46953c5d7c1b9bcb912192d8d6b1
        """)
}
