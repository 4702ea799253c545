import Foundation
import Testing
import APNTestSupport

extension ApnDemoTests {
    @Test("apn demo's connected events each count their own socket (it printed connected(openSockets: 0))")
    func connectedEventsCountTheirSocket() throws {
        let apn = try ApnProcess(["demo"])
        let (status, standardError) = try apn.waitForExit(timeout: 60)
        let lines = try apn.remainingLines()
        #expect(status == 0, "\(standardError)")
        let connected = lines.filter { $0.contains("event: connected(openSockets: ") }
        #expect(connected.count >= 4, "the demo's connections: first, after the rejection, after status 10, after the drop")
        #expect(connected.allSatisfy { $0.hasSuffix("event: connected(openSockets: 1)") }, "\(connected)")
        let disconnected = lines.filter { $0.contains("event: disconnected(openSockets: ") }
        #expect(disconnected.count == connected.count)
        #expect(disconnected.allSatisfy { $0.hasSuffix("event: disconnected(openSockets: 0)") }, "\(disconnected)")
    }
}
