extension Duration? {
    /// nil for nil, zero or less: node-apn's timeouts and intervals of 0 meant "off", not
    /// "at once".
    var turnedOffIfZero: Duration? {
        guard let self, self > .zero else { return nil }
        return self
    }
}
