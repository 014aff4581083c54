//! Runs every fuzz target's check over its committed seed corpus (`fuzz/corpus/<target>/`)
//! on the stable toolchain: a seed that breaks a check, or a target without seeds, fails
//! `cargo test` long before anyone runs the fuzzers.

use std::path::PathBuf;

use signaldesk_fuzz_checks::TARGETS;

#[test]
fn every_seed_passes_its_targets_check() {
    let corpora = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    for (target, check) in TARGETS {
        let dir = corpora.join(target);
        let mut seeds: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a corpus entry").path())
            .collect();
        seeds.sort();
        assert!(
            seeds.len() >= 3,
            "{target}: too few seeds in {}",
            dir.display()
        );
        for seed in seeds {
            let bytes = std::fs::read(&seed).expect("a seed file");
            check(&bytes);
        }
    }
}

#[test]
fn every_fuzz_target_has_a_check_and_every_check_a_target() {
    let targets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/fuzz_targets");
    let mut sources: Vec<String> = std::fs::read_dir(&targets)
        .expect("fuzz/fuzz_targets")
        .map(|entry| entry.expect("a target file").path())
        .filter_map(|path| Some(path.file_stem()?.to_str()?.to_string()))
        .collect();
    sources.sort();
    let mut checks: Vec<String> = TARGETS.iter().map(|(name, _)| name.to_string()).collect();
    checks.sort();
    assert_eq!(sources, checks);
}
