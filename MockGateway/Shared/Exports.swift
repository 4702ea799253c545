// `import APNMockGateway` brings the TLS and credential types its API names (the
// certificate authority a mock makes its certificates with and what it issues, the provider
// keys the HTTP/2 mock verifies tokens with, server credentials, TLS versions and errors)
// through `APNCredentials`, as every product hands them out.
@_exported public import APNCredentials
