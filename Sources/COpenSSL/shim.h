// The OpenSSL headers swift-apn uses, plus static inline wrappers for what Swift cannot
// import directly (function-like macros). Every wrapper carries the `capn_` prefix so it
// never collides with a real OpenSSL symbol.
#ifndef SWIFT_APN_COPENSSL_SHIM_H
#define SWIFT_APN_COPENSSL_SHIM_H

#include <openssl/opensslv.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/evp.h>
#include <openssl/bio.h>
#include <openssl/provider.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/bn.h>
#include <openssl/asn1.h>

/// The major version of the OpenSSL library linked at run time (3 on Debian 12).
static inline unsigned long capn_openssl_version_major(void) {
    return OPENSSL_version_major();
}

/// The OpenSSL version the headers were compiled against (OPENSSL_VERSION_NUMBER is a macro).
static inline unsigned long capn_openssl_header_version_number(void) {
    return (unsigned long)OPENSSL_VERSION_NUMBER;
}

// ---- Wrappers used by APNTLS (function-like macros and composite constants) ----

/// `SSL_set_tlsext_host_name`: sets the SNI host name a client sends.
static inline int capn_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// `SSL_CTX_set_mode`: adds mode bits (`SSL_MODE_*`) to a context; returns the new mask.
static inline long capn_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

/// `SSL_CTX_set_min_proto_version`: 1 on success.
static inline int capn_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

/// `SSL_CTX_set_max_proto_version`: 1 on success.
static inline int capn_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

/// `SSL_CTX_add1_chain_cert`: appends an intermediate certificate (reference taken).
static inline int capn_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *x509) {
    return (int)SSL_CTX_add1_chain_cert(ctx, x509);
}

/// `SSL_CTX_set_options` takes `SSL_OP_*` bits; `SSL_OP_NO_TICKET` is `SSL_OP_BIT(14)`,
/// which Swift cannot import.
static inline uint64_t capn_SSL_OP_NO_TICKET(void) {
    return (uint64_t)SSL_OP_NO_TICKET;
}

/// `BIO_get_mem_ptr`: the memory buffer behind a memory BIO.
static inline long capn_BIO_get_mem_ptr(BIO *bio, BUF_MEM **memory) {
    return BIO_get_mem_ptr(bio, memory);
}

/// `MBSTRING_UTF8` is `MBSTRING_FLAG | 1`-style, which Swift does not import reliably.
static inline int capn_MBSTRING_UTF8(void) {
    return MBSTRING_UTF8;
}

/// `XN_FLAG_RFC2253`: a composite of `ASN1_STRFLGS_*` and `XN_FLAG_*` bits.
static inline unsigned long capn_XN_FLAG_RFC2253(void) {
    return XN_FLAG_RFC2253;
}

/// `EVP_EC_gen("P-256")`: a new EC key on the NIST P-256 curve, or NULL.
static inline EVP_PKEY *capn_EVP_EC_gen_P256(void) {
    return EVP_EC_gen("P-256");
}

/// `EVP_RSA_gen(bits)`: a new RSA key, or NULL.
static inline EVP_PKEY *capn_EVP_RSA_gen(unsigned int bits) {
    return EVP_RSA_gen(bits);
}

// ---- STACK_OF(X509): every sk_X509_* accessor is a function-like macro ----

/// `sk_X509_new_null`: a new, empty certificate stack, or NULL.
static inline STACK_OF(X509) *capn_sk_X509_new_null(void) {
    return sk_X509_new_null();
}

/// `sk_X509_push`: appends `x509` (the stack takes over the caller's reference); the new
/// count, or 0 on failure.
static inline int capn_sk_X509_push(STACK_OF(X509) *stack, X509 *x509) {
    return sk_X509_push(stack, x509);
}

/// `sk_X509_num`: the number of certificates in the stack.
static inline int capn_sk_X509_num(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

/// `sk_X509_value`: the certificate at `index`, borrowed (no reference taken).
static inline X509 *capn_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

/// `sk_X509_pop_free(stack, X509_free)`: frees every certificate, then the stack.
static inline void capn_sk_X509_pop_free(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

#endif
