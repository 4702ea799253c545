import APNTLS
import APNTestSupport
import APNTestTraits
import Testing

/// Inputs the fuzz targets (Fuzz/) found crashing, each kept literally.
@Suite(.threadPerTest) struct FuzzRegressionTests {
    /// FuzzCredentials: a PKCS#8 P-256 key whose private scalar was damaged while its
    /// public key stayed. It was accepted, and its `verificationKey` (from the stored public
    /// key) refused the key's own signatures. Now refused as unreadable credentials.
    static let keyWithForeignPublicKey = hex("""
        308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b02
        01010420540e364744e8d698a424ca00d8f1747b0100000000000022e8a544bd
        23f437dda14403420004ae6cac81d388deb552b4f748ad6200ac09a1ac736244
        80b6b9f35425beb89e2966d385bbd99f18096356cd549fbd4ccb0b61799eb841
        e3b3b70f0942260d9932
        """)

    @Test func aKeyWhosePublicHalfIsNotItsOwnIsRefused() {
        #expect {
            _ = try ES256SigningKey(der: Self.keyWithForeignPublicKey)
        } throws: { error in
            (error as? TLSError)?.kind == .credentials
        }
    }
}
