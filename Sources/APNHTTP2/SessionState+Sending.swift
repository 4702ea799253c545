internal import CNGHTTP2

// The sending half of the callbacks: nghttp2 pulls bodies as flow control allows.
extension SessionState {
    /// nghttp2's data provider: copies up to `length` bytes of `streamID`'s body to send
    /// into `buffer`, setting EOF (and so END_STREAM) with the last of them.
    func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        let destination = UnsafeMutableRawBufferPointer(start: buffer, count: length)
        guard let (count, finished) = streams[streamID]?.readOutgoing(into: destination) else {
            // The stream is gone: nghttp2 resets it rather than send a body nobody holds.
            return Int(LibraryCode.temporalCallbackFailure)
        }
        if finished {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        return count
    }
}
