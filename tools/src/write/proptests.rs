//! Property tests for the parts that take whatever a model sends: the patch parser and applier,
//! the edit matcher, the syntax guard's line mapping and the echo. No input may panic, and the
//! exact path must agree with plain string replacement.
//!
//! `cargo test` runs a modest number of cases (256 per property, or `PROPTEST_CASES`). The
//! ignored test `fuzz_for_a_while` runs every property for `TACK_FUZZ_SECS` seconds (default
//! 60) with fresh random seeds and prints how many cases ran:
//! `TACK_FUZZ_SECS=600 cargo test --release -p tack-tools fuzz_for_a_while -- --ignored --nocapture`.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use crate::write::patch_format::{FileOp, apply_chunks, parse_patch};
use crate::write::syntax_guard::new_issues;
use crate::write::text_match::{EditPlan, Tolerance, closest_region, plan_edit, seek_lines};
use crate::write::writer::{echo_diff, echo_spans};

/// Text made of the characters that matter to the matcher: whitespace of every kind, line
/// breaks, brackets, quotes and their look-alikes, patch prefixes.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => "[a-c]{1,3}",
            2 => Just(" ".to_string()),
            2 => Just("\n".to_string()),
            1 => Just("\r\n".to_string()),
            1 => Just("\t".to_string()),
            1 => "[(){}\\[\\]\"':=+\\-@*#]",
            1 => "[\u{201c}\u{201d}\u{2018}\u{2014}\u{00a0}\u{3000}é]",
            1 => Just("    ".to_string()),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

/// Source-like text: lines of Python or Rust fragments, well formed or not.
fn source() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("def f(x):".to_string()),
            Just("    return x".to_string()),
            Just("class A:".to_string()),
            Just("x = (1, 2".to_string()),
            Just("fn g() {".to_string()),
            Just("}".to_string()),
            Just("".to_string()),
            "[ a-c():{}=]{0,12}",
        ],
        0..16,
    )
    .prop_map(|lines| lines.join("\n"))
}

/// Patch-shaped input: marker lines, hunk lines and noise, in any order.
fn patch_text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        2 => Just("*** Begin Patch".to_string()),
        2 => Just("*** End Patch".to_string()),
        1 => "\\*\\*\\* Add File: [a-c/. ]{0,6}",
        2 => "\\*\\*\\* Update File: [a-c/.]{0,4}",
        1 => "\\*\\*\\* Delete File: [a-c/.]{0,4}",
        1 => "\\*\\*\\* Move to: [a-c/.]{0,4}",
        1 => Just("*** End of File".to_string()),
        2 => "@@( [a-c (:]{0,6})?",
        1 => Just("@@ -1,2 +1,3 @@ def f():".to_string()),
        6 => "[ +\\-][ a-c()=\u{201c}]{0,8}",
        1 => Just(String::new()),
        1 => prop_oneof![Just("<<'EOF'".to_string()), Just("EOF".to_string()), Just("```".to_string())],
        1 => text(),
    ];
    prop::collection::vec(line, 0..24).prop_map(|lines| lines.join("\n"))
}

/// A patch that usually parses, so the applier gets exercised: begin, updates, end.
fn likely_patch() -> impl Strategy<Value = String> {
    (patch_text(), prop::collection::vec("[ +\\-][ a-c()]{0,6}", 1..8)).prop_map(|(middle, hunk)| {
        format!("*** Begin Patch\n*** Update File: a.py\n@@\n{}\n{middle}\n*** End Patch", hunk.join("\n"))
    })
}

/// A file and a patch made from its own lines (context, removals, anchors), with trailing
/// spaces or look-alike quotes mixed in now and then, so most of them apply and the tolerant
/// levels get exercised.
fn patch_against() -> impl Strategy<Value = (String, String)> {
    source()
        .prop_flat_map(|content| {
            let n = content.lines().count().max(1);
            let chunk = (
                0..n,
                1usize..4,
                prop::collection::vec(0u8..4, 4),
                prop::collection::vec("[ a-c()]{0,6}", 0..3),
                0u8..4,
            );
            (Just(content), prop::collection::vec(chunk, 1..4), any::<bool>())
        })
        .prop_map(|(content, mut chunks, eof)| {
            let lines: Vec<&str> = content.lines().collect();
            chunks.sort_by_key(|c| c.0);
            let mut patch = String::from("*** Begin Patch\n*** Update File: a.py\n");
            for (start, len, kinds, adds, mangle) in chunks {
                let start = start.min(lines.len());
                let end = (start + len).min(lines.len());
                if mangle == 3 && start > 0 {
                    patch.push_str(&format!("@@ {}\n", lines[start - 1]));
                } else {
                    patch.push_str("@@\n");
                }
                for (k, line) in lines[start..end].iter().enumerate() {
                    let line = match mangle {
                        1 => format!("{line}  "),
                        2 => line.replace('"', "\u{201c}").replace('-', "\u{2014}"),
                        _ => line.to_string(),
                    };
                    let prefix = if kinds[k % kinds.len()] >= 2 { '-' } else { ' ' };
                    patch.push_str(&format!("{prefix}{line}\n"));
                }
                if start == end && adds.is_empty() {
                    patch.push_str("+x\n");
                }
                for add in adds {
                    patch.push_str(&format!("+{add}\n"));
                }
            }
            if eof {
                patch.push_str("*** End of File\n");
            }
            patch.push_str("*** End Patch\n");
            (patch, content)
        })
}

/// A file and an `old` made from some of its whole lines, changed the way models change them:
/// trailing spaces added, indentation dropped, or look-alike quotes and dashes.
fn fuzzy_old() -> impl Strategy<Value = (String, String, u8)> {
    text()
        .prop_flat_map(|content| {
            let n = content.lines().count().max(1);
            (Just(content), 0..n, 1usize..4, 0u8..4, any::<bool>())
        })
        .prop_map(|(content, start, len, how, newline)| {
            let lines: Vec<&str> = content.lines().collect();
            let start = start.min(lines.len());
            let picked = &lines[start..(start + len).min(lines.len())];
            let mut old: Vec<String> = picked
                .iter()
                .map(|l| match how {
                    1 => format!("{l} \t"),
                    2 => l.trim_start().to_string(),
                    3 => l.replace('"', "\u{201d}").replace('\'', "\u{2019}").replace('-', "\u{2013}"),
                    _ => l.to_string(),
                })
                .collect();
            if newline {
                old.push(String::new());
            }
            (content, old.join("\n"), how)
        })
}

fn check_patch(patch: &str, content: &str) -> Result<(), TestCaseError> {
    if let Ok(ops) = parse_patch(patch) {
        prop_assert!(!ops.is_empty());
        for op in ops {
            if let FileOp::Update { path, chunks, .. } = op
                && let Ok((after, _)) = apply_chunks(&path, content, &chunks)
            {
                echo_diff(Some(content), &after);
            }
        }
    }
    Ok(())
}

fn check_edit(content: &str, old: &str, new: &str, replace_all: bool) -> Result<(), TestCaseError> {
    if old.is_empty() {
        return Ok(());
    }
    match plan_edit(content, old, new, replace_all) {
        EditPlan::Applied { text, tolerance, spans, at_lines, .. } => {
            prop_assert_eq!(spans.len(), at_lines.len());
            for span in &spans {
                prop_assert!(
                    span.end <= text.len()
                        && text.is_char_boundary(span.start)
                        && text.is_char_boundary(span.end)
                );
            }
            // Without line-ending translation, the exact path is plain replacement.
            if tolerance == Tolerance::Exact && !content.contains('\r') && !old.contains('\r') {
                let expected =
                    if replace_all { content.replace(old, new) } else { content.replacen(old, new, 1) };
                prop_assert_eq!(&text, &expected);
                prop_assert_eq!(replace_all || content.matches(old).count() == 1, true);
            }
            echo_spans(&text, &spans);
        }
        EditPlan::Ambiguous { lines, .. } => prop_assert!(lines.len() > 1 && !replace_all),
        EditPlan::TooLarge { .. } => prop_assert!(false, "no bound was given"),
        EditPlan::NotFound { closest } => {
            if !content.contains('\r') && !old.contains('\r') {
                prop_assert!(!content.contains(old));
            }
            if let Some(c) = closest {
                prop_assert!(c.start_line >= 1 && c.start_line <= c.end_line && c.percent <= 100);
            }
        }
    }
    Ok(())
}

fn check_fuzzy(content: &str, old: &str, new: &str) -> Result<(), TestCaseError> {
    if old.trim().is_empty() {
        return Ok(());
    }
    let plan = plan_edit(content, old, new, false);
    prop_assert!(!matches!(plan, EditPlan::NotFound { .. }), "{:?} not found in {:?}", old, content);
    check_edit(content, old, new, false)
}

fn check_lines(content: &str, pattern: &str, start: usize, eof: bool) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = content.lines().collect();
    let pattern: Vec<&str> = pattern.lines().collect();
    if let Some((at, _)) = seek_lines(&lines, &pattern, start, eof) {
        prop_assert!(at + pattern.len() <= lines.len().max(at));
    }
    if let Some(c) = closest_region(&lines, &pattern) {
        prop_assert!(c.end_line <= lines.len());
    }
    Ok(())
}

fn check_guard(before: &str, after: &str) -> Result<(), TestCaseError> {
    let issues = new_issues("x.py", Some(before), after);
    new_issues("x.rs", Some(before), after);
    prop_assert!(new_issues("x.py", Some(after), after).is_empty(), "a file adds nothing to itself");
    if !issues.is_empty() {
        crate::write::syntax_guard::refusal("x.py", after, &issues, "retry");
    }
    echo_diff(Some(before), after);
    Ok(())
}

proptest! {
    #[test]
    fn the_patch_parser_and_applier_never_panic(patch in patch_text(), content in text()) {
        check_patch(&patch, &content)?;
    }

    #[test]
    fn likely_patches_apply_or_fail_cleanly(patch in likely_patch(), content in source()) {
        check_patch(&patch, &content)?;
    }

    #[test]
    fn the_edit_matcher_never_panics_and_exact_is_replace(
        content in text(), old in text(), new in text(), replace_all in any::<bool>()
    ) {
        check_edit(&content, &old, &new, replace_all)?;
    }

    #[test]
    fn edits_of_a_fragment_of_the_file_are_found(content in text(), a in 0usize..64, len in 1usize..16, new in text()) {
        // `old` cut from the content itself always matches, at some level.
        let chars: Vec<char> = content.chars().collect();
        let start = a.min(chars.len());
        let old: String = chars[start..(start + len).min(chars.len())].iter().collect();
        if !old.is_empty() {
            let plan = plan_edit(&content, &old, &new, false);
            prop_assert!(!matches!(plan, EditPlan::NotFound { .. }), "{old:?} is in the file");
            check_edit(&content, &old, &new, false)?;
        }
    }

    #[test]
    fn patches_made_from_the_file_apply(input in patch_against()) {
        let (patch, content) = input;
        let ops = parse_patch(&patch);
        prop_assert!(ops.is_ok(), "{:?}", ops);
        check_patch(&patch, &content)?;
    }

    #[test]
    fn whole_lines_changed_the_way_models_change_them_are_found(input in fuzzy_old(), new in text()) {
        let (content, old, _) = input;
        check_fuzzy(&content, &old, &new)?;
    }

    #[test]
    fn line_seeking_never_panics(content in text(), pattern in text(), start in 0usize..50, eof in any::<bool>()) {
        check_lines(&content, &pattern, start, eof)?;
    }

    #[test]
    fn the_guard_never_panics(before in source(), after in source()) {
        check_guard(&before, &after)?;
    }
}

/// Runs every property with fresh seeds until the time is up; prints the cases run.
#[test]
#[ignore = "long: run with TACK_FUZZ_SECS=600 and --ignored"]
fn fuzz_for_a_while() {
    let secs: u64 = std::env::var("TACK_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let deadline = Instant::now() + Duration::from_secs(secs);
    let started = Instant::now();
    let config = Config { cases: 2_000, failure_persistence: None, ..Config::default() };
    let mut counts = [0u64; 8];
    while Instant::now() < deadline {
        let mut run = |i: usize, result: Result<(), String>| {
            if let Err(err) = result {
                panic!("property {i} failed: {err}");
            }
            counts[i] += u64::from(config.cases);
        };
        let mut runner = TestRunner::new(config.clone());
        run(0, runner.run(&(patch_text(), text()), |(p, c)| check_patch(&p, &c)).map_err(|e| e.to_string()));
        let mut runner = TestRunner::new(config.clone());
        run(
            1,
            runner.run(&(likely_patch(), source()), |(p, c)| check_patch(&p, &c)).map_err(|e| e.to_string()),
        );
        let mut runner = TestRunner::new(config.clone());
        run(
            2,
            runner
                .run(&(text(), text(), text(), any::<bool>()), |(c, o, n, r)| check_edit(&c, &o, &n, r))
                .map_err(|e| e.to_string()),
        );
        let mut runner = TestRunner::new(config.clone());
        run(
            3,
            runner
                .run(&(text(), text(), 0usize..50, any::<bool>()), |(c, p, s, e)| check_lines(&c, &p, s, e))
                .map_err(|e| e.to_string()),
        );
        let mut runner = TestRunner::new(config.clone());
        run(4, runner.run(&(source(), source()), |(b, a)| check_guard(&b, &a)).map_err(|e| e.to_string()));
        // Edits cut from the file itself.
        let mut runner = TestRunner::new(config.clone());
        run(
            5,
            runner
                .run(&(text(), 0usize..64, 1usize..16, text()), |(content, a, len, new)| {
                    let chars: Vec<char> = content.chars().collect();
                    let start = a.min(chars.len());
                    let old: String = chars[start..(start + len).min(chars.len())].iter().collect();
                    if old.is_empty() {
                        return Ok(());
                    }
                    let found = !matches!(plan_edit(&content, &old, &new, false), EditPlan::NotFound { .. });
                    prop_assert!(found, "{:?} is in the file", old);
                    check_edit(&content, &old, &new, false)
                })
                .map_err(|e| e.to_string()),
        );
        let mut runner = TestRunner::new(config.clone());
        run(6, runner.run(&patch_against(), |(p, c)| check_patch(&p, &c)).map_err(|e| e.to_string()));
        let mut runner = TestRunner::new(config.clone());
        run(
            7,
            runner
                .run(&(fuzzy_old(), text()), |((c, o, _), n)| check_fuzzy(&c, &o, &n))
                .map_err(|e| e.to_string()),
        );
    }
    let total: u64 = counts.iter().sum();
    eprintln!(
        "fuzz: {total} cases in {:.0} s without a failure (patch {}, likely patch {}, edit {}, lines {}, guard {}, \
         fragment {}, patch from file {}, fuzzy old {})",
        started.elapsed().as_secs_f64(),
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        counts[4],
        counts[5],
        counts[6],
        counts[7]
    );
}
