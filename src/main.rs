//! The `pi-session` binary: parses the command line, calls the library, renders.

mod cli;

/// mimalloc rather than the system allocator: listings render rows on every core, and with
/// glibc's allocator the threads' many small strings contend for one arena's lock (measured:
/// `log` spent more CPU on two cores than on one). The library leaves the choice to binaries.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
