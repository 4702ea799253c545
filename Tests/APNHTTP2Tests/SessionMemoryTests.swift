@testable import APNHTTP2
import CNGHTTP2
import Testing

/// nghttp2's memory for a session: blocks come back for reuse by size, keep their bytes
/// through a reallocation, and never more than the limit waits.
@Suite struct SessionMemoryTests {
    @Test func aFreedBlockIsHandedOutAgainForTheSameSizeClass() {
        var memory = SessionMemory()
        defer { memory.releaseAll() }
        let first = memory.allocate(40)!
        memory.release(first)
        #expect(memory.allocate(33) == first, "33 and 40 bytes share the 48-byte class")
        let other = memory.allocate(40)!
        #expect(other != first)
        memory.release(other)
        memory.release(first)
        // Zero bytes still get a block that can wait on a list.
        let empty = memory.allocate(0)!
        memory.release(empty)
        #expect(memory.allocate(1) == empty)
        memory.release(nil)
    }

    @Test func reallocationKeepsTheBytesAndLargeBlocksGoBackToTheSystem() {
        var memory = SessionMemory()
        defer { memory.releaseAll() }
        let small = memory.allocate(20)!
        for index in 0..<20 { small.storeBytes(of: UInt8(index), toByteOffset: index, as: UInt8.self) }
        // Within its class: the same block.
        #expect(memory.reallocate(small, to: 30) == small)
        // Beyond it, and past the largest recycled size: moved, bytes kept.
        let large = memory.reallocate(small, to: SessionMemory.largestRecycled * 4)!
        #expect((0..<20).allSatisfy { large.load(fromByteOffset: $0, as: UInt8.self) == UInt8($0) })
        large.storeBytes(of: 0xAB, toByteOffset: SessionMemory.largestRecycled * 4 - 1, as: UInt8.self)
        let shrunk = memory.reallocate(large, to: 10)!
        #expect((0..<10).allSatisfy { shrunk.load(fromByteOffset: $0, as: UInt8.self) == UInt8($0) })
        memory.release(shrunk)
        #expect(memory.reallocate(nil, to: 8) != nil)
    }

    @Test func noMoreThanTheLimitWaitsOnTheLists() {
        var memory = SessionMemory()
        defer { memory.releaseAll() }
        let size = SessionMemory.largestRecycled
        let count = SessionMemory.cachedBytesLimit / size + 10
        let blocks = (0..<count).map { _ in memory.allocate(size)! }
        for block in blocks { memory.release(block) }
        // The first limit/size came back to the lists; the ten after went to the system.
        let again = (0..<count).map { _ in memory.allocate(size)! }
        let reused = Set(again).intersection(Set(blocks.prefix(count - 10)))
        #expect(reused.count == count - 10)
        for block in again { memory.release(block) }
    }

    @Test func callocZeroesAndRefusesAnOverflow() throws {
        let memory = UnsafeMutablePointer<SessionMemory>.allocate(capacity: 1)
        memory.initialize(to: SessionMemory())
        defer {
            memory.pointee.releaseAll()
            memory.deinitialize(count: 1)
            memory.deallocate()
        }
        let allocator = SessionMemory.allocator(memory)
        let dirty = allocator.malloc(64, allocator.mem_user_data)!
        dirty.initializeMemory(as: UInt8.self, repeating: 0xFF, count: 64)
        allocator.free(dirty, allocator.mem_user_data)
        let zeroed = try #require(allocator.calloc(8, 8, allocator.mem_user_data))
        #expect(zeroed == dirty)
        #expect((0..<64).allSatisfy { zeroed.load(fromByteOffset: $0, as: UInt8.self) == 0 })
        allocator.free(zeroed, allocator.mem_user_data)
        #expect(allocator.calloc(Int.max, 2, allocator.mem_user_data) == nil)
    }
}
