internal import CNGHTTP2

// The sending half of the callbacks: nghttp2 pulls bodies as flow control allows.
extension SessionState {
    /// nghttp2's data provider: copies up to `length` bytes of `streamID`'s body to send
    /// into `buffer`, setting EOF (and so END_STREAM) with the last of them.
    mutating func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let slot = streams.slot(of: streamID) else {
            // The stream is gone: nghttp2 resets it rather than send a body nobody holds.
            return Int(LibraryCode.temporalCallbackFailure)
        }
        let (count, finished) = streams[slot: slot].readOutgoing(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
        if finished {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        return count
    }
}
