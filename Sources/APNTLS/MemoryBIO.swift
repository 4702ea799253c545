internal import COpenSSL

/// Owns an OpenSSL memory `BIO`: a read-only view of bytes for the PEM readers, or a
/// growable buffer for the PEM writers.
final class MemoryBIO {
    let pointer: OpaquePointer
    /// The bytes a read-only BIO points into, owned here and freed after the BIO.
    private let storage: UnsafeMutableRawBufferPointer?

    /// A writable, empty memory BIO.
    init() throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw .openSSL(.credentials, "allocating a memory BIO")
        }
        pointer = bio
        storage = nil
    }

    /// A read-only memory BIO over a copy of `bytes`.
    init(reading bytes: [UInt8]) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard bytes.count <= Int(Int32.max) else {
            throw TLSError(.credentials, "reading \(bytes.count) bytes: larger than OpenSSL's 2 GiB limit")
        }
        // A stable copy: BIO_new_mem_buf keeps the pointer, so it must outlive the BIO.
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        copy.copyBytes(from: bytes)
        guard let bio = BIO_new_mem_buf(copy.baseAddress, Int32(bytes.count)) else {
            copy.deallocate()
            throw .openSSL(.credentials, "allocating a memory BIO")
        }
        pointer = bio
        storage = copy
    }

    deinit {
        BIO_free(pointer)
        storage?.deallocate()
    }

    /// Everything written so far.
    func contents() -> [UInt8] {
        var memory: UnsafeMutablePointer<BUF_MEM>?
        _ = capn_BIO_get_mem_ptr(pointer, &memory)
        guard let memory, let data = memory.pointee.data, memory.pointee.length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: memory.pointee.length))
    }

    /// Everything written so far, as text (PEM is ASCII).
    func string() -> String {
        String(decoding: contents(), as: UTF8.self)
    }
}
