import APN

/// What one `apn send` sends, whichever the protocol (``SendRun``, ``ProviderSendRun``): the
/// notification, the recipients and the token file's bad lines, whether every outcome gets a
/// line, and the stop signals it honours.
struct SendJob: Sendable {
    let notification: APN.Notification
    let devices: [Device]
    let badLines: [TokenList.BadLine]
    /// `--all`: a line for every notification, not only for those not accepted.
    let all: Bool
    let interrupt: SendInterrupt

    init(notification: APN.Notification, tokens: TokenList, all: Bool, interrupt: SendInterrupt) {
        self.notification = notification
        devices = tokens.devices
        badLines = tokens.bad
        self.all = all
        self.interrupt = interrupt
    }
}
