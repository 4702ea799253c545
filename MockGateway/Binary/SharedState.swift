/// The binary gateway's shared state.
typealias SharedState = GatewayState<Ledger>
