internal import COpenSSL

/// OpenSSL's `d2i_*` and `i2d_*` calling conventions, in one place.
enum DEREncoding {
    /// Runs a `d2i_*` reader over `der`: the object it made (owned by the caller), and
    /// whether it used every byte (`false` when bytes trail the first object), or `nil`
    /// when it read nothing.
    static func decode(
        _ der: [UInt8], _ read: (inout UnsafePointer<UInt8>?, Int) -> OpaquePointer?
    ) -> (object: OpaquePointer, usedEveryByte: Bool)? {
        der.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress, !buffer.isEmpty else { return nil }
            var cursor: UnsafePointer<UInt8>? = start
            guard let object = read(&cursor, buffer.count) else { return nil }
            return (object, cursor == start + buffer.count)
        }
    }

    /// Runs an `i2d_*` writer twice, once for the length and once into a buffer of that
    /// length; `nil` when it fails either time.
    static func encode(_ write: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
        let length = write(nil)
        guard length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return write(&cursor)
        }
        return written == length ? bytes : nil
    }
}
