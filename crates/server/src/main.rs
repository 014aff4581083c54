use std::process::ExitCode;

fn main() -> ExitCode {
    signaldesk_server::cli::main()
}
