extension Notification {
    /// node-apn's per-notification `errorCallback(errorCode, device)`: called instead of the
    /// connection's ``Connection/Options/errorCallback`` for this notification.
    public typealias ErrorCallback = @Sendable (ErrorCallbackCode, Device?) -> Void

    /// Called, instead of the connection's error callback, when this notification is
    /// refused or a connection fails while it waits. Copied by ``clone(device:)``.
    public var errorCallback: ErrorCallback? {
        get { withState { $0.errorCallback } }
        set { withState { $0.errorCallback = newValue } }
    }

    /// Sets ``errorCallback``.
    @discardableResult
    public func setErrorCallback(_ callback: ErrorCallback?) -> Self {
        errorCallback = callback
        return self
    }

    /// What a connection writes for this notification, read under one lock: the compiled
    /// payload and the delivery fields.
    package struct Delivery: Sendable {
        package var payload: [UInt8]
        package var expiry: UInt32
        package var priority: UInt8
        package var retryLimit: Int
    }

    package func delivery() -> Delivery {
        withState { state in
            Delivery(
                payload: state.compiledPayload(), expiry: state.expiry, priority: state.priority,
                retryLimit: state.retryLimit)
        }
    }
}
