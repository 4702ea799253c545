#ifndef CPOSTGRESQL_SHIM_H
#define CPOSTGRESQL_SHIM_H

#include <libpq-fe.h>

/* PG_DIAG_SQLSTATE is a character-literal macro Swift does not import. */
static inline const char *cpostgresql_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

#endif
