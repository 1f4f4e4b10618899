/* Built into traindeck-trainer only when it is compiled with AddressSanitizer (trainer/CMakeLists.txt).
 *
 * LeakSanitizer symbolizes the stacks of leaked blocks when the process exits. By then Open MPI has
 * dlclose()d its components, so the allocations it never frees (MPI_Init's, its progress threads') have
 * stacks of "<unknown module>" frames that no suppression can name, and every rank under mpirun fails.
 * With dlclose() a no-op the components stay mapped, their frames name their modules (mca_*.so), and
 * tests/sanitizers/lsan.supp suppresses Open MPI's leaks by module while the trainer's own stay reported. */
#if defined(__SANITIZE_ADDRESS__)
__attribute__((visibility("default"))) int dlclose(void* handle)
{
    (void)handle;
    return 0;
}
#endif
