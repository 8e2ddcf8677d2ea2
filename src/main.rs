fn main() {
    std::process::exit(pi_session::cli::main());
}
