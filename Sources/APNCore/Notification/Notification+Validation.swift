public import APNWire

extension Notification {
    /// The largest payload `command` accepts, in bytes: 256 for commands 0 and 1, 2048
    /// for command 2, and 4096 for command 2 when `voip` is set (node-apn's `voip` option).
    /// `voip` does not change the limit of commands 0 and 1, which predate VoIP pushes.
    public static func payloadLimit(for command: Command, voip: Bool = false) -> Int {
        if voip && command == .frame {
            return Command.voipPayloadLimit
        }
        return command.payloadLimit
    }

    /// Checks that the compiled payload fits `command`'s limit
    /// (``payloadLimit(for:voip:)``), counting bytes in ``encoding``.
    ///
    /// - Throws: ``APNError/Code/payloadTooLarge`` with status 7 (invalid payload size),
    ///   the payload's ``APNError/size`` and the ``APNError/limit``.
    public func validate(for command: Command, voip: Bool = false) throws(APNError) {
        let limit = Self.payloadLimit(for: command, voip: voip)
        let (size, encoding) = withState { ($0.compiledPayload().count, $0.encoding) }
        if size > limit {
            let context = voip
                ? command == .frame ? "\(command) with voip" : "\(command) (voip's 4096 bytes need command 2, format .frame)"
                : "\(command)"
            throw .payloadTooLarge(size: size, limit: limit, encoding: encoding.rawValue, context: context)
        }
    }
}
