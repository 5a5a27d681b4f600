//! The detection functions of C#, PHP, Ruby, Swift and Bash (each language's `project.rs`),
//! compiled for their tests until each language's spec wires its own (`mod project;` in its
//! `mod.rs`, `checks: project::checks`); then this module goes.

#[path = "bash/project.rs"]
mod bash;
#[path = "csharp/project.rs"]
mod csharp;
#[path = "php/project.rs"]
mod php;
#[path = "ruby/project.rs"]
mod ruby;
#[path = "swift/project.rs"]
mod swift;

/// What the language's `checks` find is theirs to declare only once wired: until then nothing
/// calls them but their tests.
#[test]
fn every_previewed_language_finds_nothing_in_an_empty_folder() {
    let dir = tempfile::tempdir().unwrap();
    for checks in [bash::checks, csharp::checks, php::checks, ruby::checks, swift::checks] {
        assert_eq!(checks(dir.path()), []);
    }
}
