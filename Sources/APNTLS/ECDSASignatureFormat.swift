internal import COpenSSL

/// ECDSA signatures in their two encodings: the DER `ECDSA-Sig-Value` (a SEQUENCE of the
/// INTEGERs r and s) that OpenSSL reads and writes, and JOSE's raw r‖s (RFC 7518 §3.4),
/// each half big-endian and left-padded with zeros to the curve's size.
enum ECDSASignatureFormat {
    /// The size of r and of s on P-256, so a raw ES256 signature is twice this long.
    static let coordinateSize = 32

    /// DER to raw r‖s; `nil` unless `der` is exactly one ECDSA-Sig-Value whose r and s fit
    /// in ``coordinateSize`` bytes each.
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSASignature(der: der) else { return nil }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature.pointer, &r, &s)
        let size = Int32(coordinateSize)
        var raw = [UInt8](repeating: 0, count: 2 * coordinateSize)
        let fits = raw.withUnsafeMutableBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, start, size) == size && BN_bn2binpad(s, start + coordinateSize, size) == size
        }
        return fits ? raw : nil
    }

    /// Raw r‖s to DER; `nil` unless `raw` is exactly 2 × ``coordinateSize`` bytes with
    /// neither r nor s zero.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * coordinateSize,
            let signature = ECDSASignature(r: raw[..<coordinateSize], s: raw[coordinateSize...])
        else { return nil }
        return DEREncoding.encode { i2d_ECDSA_SIG(signature.pointer, $0) }
    }
}

/// Owns one OpenSSL `ECDSA_SIG`.
private final class ECDSASignature {
    let pointer: OpaquePointer

    /// Reads a DER ECDSA-Sig-Value that fills `der` exactly.
    init?(der: [UInt8]) {
        OpenSSLErrorQueue.clear()
        guard let (signature, usedEveryByte) = DEREncoding.decode(der, { d2i_ECDSA_SIG(nil, &$0, $1) }) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        pointer = signature
        guard usedEveryByte else { return nil }
    }

    /// A signature from big-endian r and s, refused when either is zero.
    init?(r rBytes: ArraySlice<UInt8>, s sBytes: ArraySlice<UInt8>) {
        guard let signature = ECDSA_SIG_new() else { return nil }
        pointer = signature
        var r = Self.number(rBytes)
        var s = Self.number(sBytes)
        defer {
            BN_free(r)  // both nil once ECDSA_SIG_set0 took them over; BN_free(NULL) is a no-op
            BN_free(s)
        }
        guard let rNumber = r, let sNumber = s, BN_is_zero(rNumber) == 0, BN_is_zero(sNumber) == 0,
            ECDSA_SIG_set0(signature, rNumber, sNumber) == 1
        else { return nil }
        r = nil
        s = nil
    }

    deinit {
        ECDSA_SIG_free(pointer)
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> OpaquePointer? {
        bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
    }
}
