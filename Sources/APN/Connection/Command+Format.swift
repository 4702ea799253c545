extension Command {
    /// The format itself: `Connection.Format`, which this property mapped to its command,
    /// is ``Command`` now.
    @available(*, deprecated, message: "Connection.Options.format is a Command: use it as it is")
    public var command: Command { self }
}
