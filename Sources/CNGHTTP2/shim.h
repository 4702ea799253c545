// nghttp2 from Debian's libnghttp2-dev, for the APNHTTP2 target only. Swift imports the
// whole API as it is (functions, enums, the frame union), so no wrapper is needed yet;
// any added later carries the `capn_` prefix, as in COpenSSL's shim.
#ifndef SWIFT_APN_CNGHTTP2_SHIM_H
#define SWIFT_APN_CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>

#endif
