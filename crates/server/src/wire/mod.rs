//! The JSON views sent to the browser that more than one side of the server builds: the API
//! handlers (`api/`), the backtest jobs (`backtest/`) and the live feed (`ws/`). This module
//! sits below all of them and depends on none (`wire_depends_on_no_handler_or_job` checks it),
//! so the handlers, the jobs and the app state never form a circle through a shared view.

pub mod stats;
pub mod time;
pub mod trades;

pub use time::rfc3339;

#[cfg(test)]
mod fence {
    use std::path::Path;

    /// The modules the wire views must not reach: they build on the views, not the reverse.
    const ABOVE: [&str; 4] = ["crate::api", "crate::app", "crate::backtest", "crate::ws"];

    #[test]
    fn wire_depends_on_no_handler_or_job() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/wire");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).expect("src/wire is readable") {
            let path = entry.expect("a directory entry").path();
            let source = std::fs::read_to_string(&path).expect("a source file");
            read += 1;
            for above in ABOVE {
                // This file names them in ABOVE; its code above the tests must not use them.
                let code = source.split("#[cfg(test)]").next().unwrap_or_default();
                assert!(
                    !code.contains(above),
                    "{} uses {above}: wire views must not depend on handlers, jobs or the app",
                    path.display()
                );
            }
        }
        assert!(read >= 3, "read only {read} files of src/wire");
    }
}
