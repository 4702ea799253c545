public import Foundation

extension Device {
    /// Wraps a token as `Data`, the type iOS hands the app in
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)` — for a server
    /// that receives the bytes as they are rather than as hex.
    ///
    /// - Parameters:
    ///   - data: The token's bytes (copied).
    ///   - validatesLength: Whether to require a length in ``tokenLengths`` (default `true`).
    /// - Throws: ``APNError/Code/invalidToken`` (status 8) when `data` is empty or the
    ///   length check fails, as ``init(token:validatesLength:)``.
    public init(data: Data, validatesLength: Bool = true) throws(APNError) {
        try self.init(token: [UInt8](data), validatesLength: validatesLength)
    }
}
