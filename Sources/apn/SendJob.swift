import APN

/// What one `apn send` sends, whichever the protocol (``SendRun``, ``ProviderSendRun``): the
/// notification, the recipients and the token file's bad lines, whether every outcome gets a
/// line, and the stop signals it honours.
struct SendJob: Sendable {
    let notification: APN.Notification
    /// The recipients, perhaps still being read (``SendRun`` reads on while it sends).
    let recipients: RecipientSupply
    /// `--all`: a line for every notification, not only for those not accepted.
    let all: Bool
    let interrupt: SendInterrupt

    init(notification: APN.Notification, recipients: RecipientSupply, all: Bool, interrupt: SendInterrupt) {
        self.notification = notification
        self.recipients = recipients
        self.all = all
        self.interrupt = interrupt
    }

    init(notification: APN.Notification, tokens: TokenList, all: Bool, interrupt: SendInterrupt) {
        self.init(notification: notification, recipients: RecipientSupply(complete: tokens), all: all, interrupt: interrupt)
    }

    /// The devices of recipients read before the send (``RecipientSupply/wasCompleteAtStart``).
    var devices: [Device] { recipients.complete.devices }
    /// The bad lines of recipients read before the send.
    var badLines: [TokenList.BadLine] { recipients.complete.bad }
}
