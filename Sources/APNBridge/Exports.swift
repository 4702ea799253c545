// `import APNBridge` brings every TLS type its API names — the bridge's own certificate and
// key, the CAs its clients chain to, the TLS version offered, the error a bad one throws —
// and what those types' own API names: APNTLS is no product of its own. Scoped re-exports,
// as APN's `Exports.swift`, so their members stay visible under `MemberImportVisibility`;
// `CredentialExportsTests` keeps this list equal to what the API names.
@_exported public import struct APNTLS.PushEnvironment
@_exported public import struct APNTLS.PushTopic
@_exported public import class APNTLS.TLSCertificate
@_exported public import struct APNTLS.TLSCredentials
@_exported public import struct APNTLS.TLSError
@_exported public import class APNTLS.TLSPrivateKey
@_exported public import struct APNTLS.TLSVersion
