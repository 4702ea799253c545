internal import COpenSSL

/// Owns one OpenSSL `EVP_MD_CTX`: the state of one signature or one verification. Each
/// operation makes its own, so keys can sign and verify on several threads at once.
final class DigestContext {
    let pointer: OpaquePointer

    init() throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else { throw .openSSL(.signing, "allocating a digest context") }
        pointer = context
    }

    deinit {
        EVP_MD_CTX_free(pointer)
    }
}
