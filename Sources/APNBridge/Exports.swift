// `import APNBridge` brings the two TLS types its configuration takes (the bridge's own
// certificate and key, the CAs its clients chain to): APNTLS is no product of its own.
// Scoped re-exports, as APN's `Exports.swift`, so their members stay visible under
// `MemberImportVisibility`.
@_exported public import struct APNTLS.TLSCredentials
@_exported public import class APNTLS.TLSCertificate
