// `import APNBridge` brings the TLS and credential types its API names (the bridge's own
// certificate and key, the CAs its clients chain to, the TLS version offered, the error a
// bad one throws) through `APNCredentials`, as every product hands them out.
@_exported public import APNCredentials
