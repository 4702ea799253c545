// `import APN` is all a user writes: the wire-level vocabulary the public API speaks
// (`Command`, `StatusCode`, `WireBuffer` …) comes with it.
@_exported public import APNWire
