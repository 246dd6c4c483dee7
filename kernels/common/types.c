/* types.c — datatype checks shared by the kernels. */
#include "a2a.h"

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
