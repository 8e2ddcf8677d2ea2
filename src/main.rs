//! The `pi-session` binary: parses the command line, calls the library, renders.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
