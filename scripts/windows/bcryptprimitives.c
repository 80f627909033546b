/* A stand-in for Windows' bcryptprimitives.dll, for running the tests
 * under Wine only (scripts/windows.sh builds it; nothing ships it).
 *
 * Rust's standard library takes its random bytes from ProcessPrng, which
 * Windows 10 and later export from bcryptprimitives.dll. Debian's Wine 8.0
 * has no such DLL, so without this one no Rust program loads there. It
 * forwards to RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    /* RtlGenRandom takes a ULONG length: ask in pieces that fit. */
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, n)) {
            return FALSE;
        }
        data += n;
        len -= n;
    }
    return TRUE;
}
