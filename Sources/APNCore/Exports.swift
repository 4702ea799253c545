// `import APNCore` (and so `import APN`) brings the wire-level types the models speak:
// `StatusCode` (error callbacks, outcomes, `APNError`) and `Command` (the format option,
// payload limits). The rest of the codec — encoders, decoders, `WireBuffer`, hex — is
// APNWire's: `import APNWire` where it is used. Scoped re-exports rather than typealiases, so
// that the types' members stay visible to a client that compiles with `MemberImportVisibility`.
@_exported public import enum APNWire.Command
@_exported public import struct APNWire.StatusCode

// The HTTP/2 API's vocabulary lives in APNWire too (so that the mocks and the bridge need no
// client module); `Notification`'s provider headers, `ProviderResponse` and `ProviderError`
// speak it.
@_exported public import struct APNWire.ProviderReason
@_exported public import struct APNWire.PushType
