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

/// The major version of the OpenSSL library linked at run time (3 on Debian 12).
static inline unsigned long capn_openssl_version_major(void) {
    return OPENSSL_version_major();
}

/// The OpenSSL version the headers were compiled against (OPENSSL_VERSION_NUMBER is a macro).
static inline unsigned long capn_openssl_header_version_number(void) {
    return (unsigned long)OPENSSL_VERSION_NUMBER;
}

#endif
