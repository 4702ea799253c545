import APNTLS
import Glibc
import Testing

/// #41: a listener given a receive buffer hands out sockets with it (`SO_RCVBUF`, set before
/// `listen` and inherited), which bounds what the kernel holds unread for a client of a
/// bridge that is killed; without one, the system's autotuning.
@Suite struct ListenerReceiveBufferTests {
    static func receiveBuffer(of descriptor: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &value, &length)
        return value
    }

    @Test func acceptedSocketsHaveTheReceiveBufferAsked() throws {
        let fixture = try Fixture()
        let listener = try TLSListener(context: try fixture.serverContext(), receiveBuffer: 32 << 10)
        let client = try TLSConnection.connect(
            host: "127.0.0.1", port: listener.port, context: try fixture.clientContext(), timeout: .seconds(5))
        let server = try listener.accept(deadline: .now + .seconds(5))
        // Linux keeps twice what is asked (half for its bookkeeping).
        #expect(Self.receiveBuffer(of: server.fileDescriptor) == 2 * (32 << 10))
        _ = client
        let plain = try TLSListener(context: try fixture.serverContext())
        let other = try TLSConnection.connect(
            host: "127.0.0.1", port: plain.port, context: try fixture.clientContext(), timeout: .seconds(5))
        let autotuned = try plain.accept(deadline: .now + .seconds(5))
        #expect(Self.receiveBuffer(of: autotuned.fileDescriptor) != 2 * (32 << 10), "left to the system")
        _ = other
    }
}
