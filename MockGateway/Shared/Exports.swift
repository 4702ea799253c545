// `import APNMockGateway` brings every TLS type its API names — the certificate authority a
// mock makes its certificates with (and what it issues), the provider keys the HTTP/2 mock
// verifies tokens with, the server credentials, TLS versions and errors — and what those
// types' own API names: APNTLS is no product of its own, so a dependent package's tests
// could not name them otherwise. Scoped re-exports, as APN's and APNBridge's, so their
// members stay visible under `MemberImportVisibility`; `CredentialExportsTests` keeps this
// list equal to what the API names.
@_exported public import class APNTLS.CertificateAuthority
@_exported public import class APNTLS.ES256VerificationKey
@_exported public import struct APNTLS.IssuedCertificate
@_exported public import struct APNTLS.PushEnvironment
@_exported public import struct APNTLS.PushTopic
@_exported public import class APNTLS.TLSCertificate
@_exported public import struct APNTLS.TLSCredentials
@_exported public import struct APNTLS.TLSError
@_exported public import class APNTLS.TLSPrivateKey
@_exported public import struct APNTLS.TLSVersion
