/// Which notification: the `ordinal`-th decoded on bridge connection `connection`.
///
/// The bridge names notifications by arrival, never by their binary identifier: command 0
/// has none, and a client may repeat identifiers (they wrap, and nothing forbids reuse).
/// The connection number makes the name unique among all of a tenant's connections, which
/// is what lets the ``ResendRecord`` route an answer to the connection that took over a
/// pending entry.
package struct Arrival: Hashable, Sendable, CustomStringConvertible {
    /// The connection, numbered by the driver: unique among the connections that share
    /// one ``ResendRecord``, and never reused while it lives (a late answer for an old
    /// connection must not settle a new one's entry).
    package let connection: UInt64
    /// The notification's place on that connection: 0, 1, 2 … in the order decoded.
    package let ordinal: Int

    /// The `ordinal`-th notification of `connection`.
    package init(connection: UInt64, ordinal: Int) {
        self.connection = connection
        self.ordinal = ordinal
    }

    /// `3#7`: notification 7 of connection 3.
    package var description: String { "\(connection)#\(ordinal)" }
}
