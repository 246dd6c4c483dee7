/* smpi_execute.h — force-included into kernels/common/sim_copy.c in the model build:
 * SimGrid's charge for local work, which the tracing MPI layer (trace_mpi.c) implements
 * by adding the seconds to the traced rank's open epoch. */
#ifndef A2A_SMPI_EXECUTE_H
#define A2A_SMPI_EXECUTE_H
void smpi_execute(double duration);
#endif
