/* sha256.h — the SHA-256 digest (FIPS 180-4) of a byte string, as lowercase hex. */
#ifndef A2A_SHA256_H
#define A2A_SHA256_H

#include <stddef.h>

/* Writes the SHA-256 of data[0..len) into hex as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t len, char hex[65]);

#endif
