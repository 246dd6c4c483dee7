/* types.c — datatype checks shared by the kernels. */
#include "a2a.h"
#include "kernel_util.h"

#include <limits.h>
#include <stdlib.h>

/* Guarantees: *bytes = size of one element when the type's data is contiguous. */
int A2A_Type_bytes(MPI_Datatype type, MPI_Aint *bytes)
{
    int size;
    MPI_Aint lb, extent;
    int err = MPI_Type_size(type, &size);
    if (err != MPI_SUCCESS)
        return err;
    err = MPI_Type_get_extent(type, &lb, &extent);
    if (err != MPI_SUCCESS)
        return err;
    if (lb != 0 || extent != (MPI_Aint)size)
        return MPI_ERR_TYPE;
    *bytes = size;
    return MPI_SUCCESS;
}

/* Guarantees: INT_MAX unless A2A_MAX_MESSAGE_BYTES holds a positive integer below it. */
long long a2a_max_message_bytes(void)
{
    static long long limit = -1;
    if (limit < 0) {
        const char *env = getenv("A2A_MAX_MESSAGE_BYTES");
        long long v = env ? strtoll(env, NULL, 10) : 0;
        limit = (v > 0 && v < INT_MAX) ? v : INT_MAX;
    }
    return limit;
}
