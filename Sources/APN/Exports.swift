// The models (`Device`, `Notification`, `APNError`, the outcome types, JSON, the logging
// protocol) live under the transports in `APNCore` (#43), with the wire-level types they
// speak: `import APN` brings them all as before.
@_exported public import APNCore
