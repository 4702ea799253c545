// node-apn 1.x's other names for what this library names once, gathered here (#28): a
// port of a node-apn app keeps its calls, and the rest of the API has one name for each
// thing. Each is the named member and nothing more; nothing else in the library calls them.

extension Connection {
    /// node-apn's name for ``push(_:to:)-([Device])``.
    public func pushNotification(_ notification: Notification, _ devices: [Device]) {
        push(notification, to: devices)
    }

    /// node-apn's name for ``push(_:to:outcome:)``.
    public func pushNotification(_ notification: Notification, _ device: Device) {
        push(notification, to: device)
    }
}

extension Connection.Options {
    /// node-apn's legacy name for ``ServiceAccess/address``; when set it wins.
    public var gateway: String? {
        get { access.legacyAddress }
        set { access.legacyAddress = newValue }
    }
}

extension Notification {
    /// The old name of ``contentAvailable`` (Newsstand), kept as node-apn kept it.
    public var newsstandAvailable: Bool {
        get { contentAvailable }
        set { contentAvailable = newValue }
    }

    /// Sets ``newsstandAvailable``, the old name of ``contentAvailable``.
    @discardableResult
    public func setNewsstandAvailable(_ newsstandAvailable: Bool) -> Self {
        self.contentAvailable = newsstandAvailable
        return self
    }
}
