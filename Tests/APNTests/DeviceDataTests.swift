import APN
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Device from Data", .threadPerTest)
struct DeviceDataTests {
    @Test("Data, as iOS hands the app its token, gives the device of the same bytes")
    func fromData() throws {
        let data = Data(DeviceTests.bytes)
        let device = try Device(data: data)
        #expect(device.token == DeviceTests.bytes)
        #expect(device.hexString == DeviceTests.hex)
        #expect(device == (try Device(DeviceTests.hex)))
    }

    @Test("a slice of a larger Data is read from its own start")
    func fromSlice() throws {
        let padded = Data([0xFF, 0xFF] + DeviceTests.bytes + [0xEE])
        let slice = padded[2..<34]
        #expect(slice.startIndex == 2)
        #expect(try Device(data: slice).token == DeviceTests.bytes)
    }

    @Test("empty, or too long without validatesLength: false, is status 8 as for bytes")
    func refusals() throws {
        #expect(throws: APNError.self) { try Device(data: Data()) }
        do {
            _ = try Device(data: Data(repeating: 1, count: 101))
            Issue.record("a 101-byte token was accepted")
        } catch {
            #expect(error.code == .invalidToken)
            #expect(error.status?.rawValue == 8)
        }
        #expect(try Device(data: Data(repeating: 1, count: 101), validatesLength: false).token.count == 101)
    }
}
