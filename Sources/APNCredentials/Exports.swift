// The TLS and credential types swift-apn's products hand out (#43 item 4), in one product:
// `APNTLS`, which defines them, is no product. `APNBridge` and `APNMockGateway` re-export
// this module, so `import APNBridge` or `import APNMockGateway` brings them all the same
// way; a package may also `import APNCredentials` on its own. Scoped re-exports, so their
// members stay visible under `MemberImportVisibility`. `CredentialExportsTests` checks that
// every `APNTLS` type a product's API names (and what those types' API names) is here.
@_exported public import class APNTLS.CertificateAuthority
@_exported public import class APNTLS.ES256SigningKey
@_exported public import class APNTLS.ES256VerificationKey
@_exported public import struct APNTLS.IssuedCertificate
@_exported public import struct APNTLS.PushEnvironment
@_exported public import struct APNTLS.PushTopic
@_exported public import class APNTLS.TLSCertificate
@_exported public import struct APNTLS.TLSCredentials
@_exported public import struct APNTLS.TLSError
@_exported public import class APNTLS.TLSPrivateKey
@_exported public import struct APNTLS.TLSVersion
