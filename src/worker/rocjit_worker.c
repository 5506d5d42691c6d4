/*
 * rocjit_worker.c - main of `rocjit-worker`, the compile worker the library starts
 * (src/worker/serve.c is the worker; pool.c starts it).  Not part of the library.
 */
#include "worker/pool.h"

int main(int argc, char **argv)
{
	return rj_worker_serve(argc, argv);
}
