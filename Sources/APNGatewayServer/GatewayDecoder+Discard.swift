import APNWire

extension GatewayDecoder {
    /// Decodes and throws away up to `limit` notifications, returning how many: what a
    /// connection reads after a refused one is decoded only to be counted. Stops at a
    /// rejection or an unknown command, after which the stream cannot be split into
    /// notifications: the decoder is then finished and ignores what it is fed, so
    /// thrown-away bytes never accumulate.
    mutating func discard(upTo limit: Int) -> Int {
        var count = 0
        while count < limit, case .notification? = next({ _ in }) {
            count += 1
        }
        return count
    }
}
