//! Which checks a C# project declares: `dotnet test` for a solution or a project file, its TRX
//! results printed after the run's own lines.

use std::path::{Path, PathBuf};

use super::super::ProjectCheck;

/// The folder's files whose names end in `ext`, sorted.
fn named(dir: &Path, ext: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().is_file())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| n.ends_with(ext))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A file name as one word for `sh -c`.
fn quoted(name: &str) -> String {
    if name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c)) {
        name.to_string()
    } else {
        format!("'{}'", name.replace('\'', "'\\''"))
    }
}

/// A `*.sln` or `*.csproj`: `dotnet test` writing TRX files into a fresh folder, printed after
/// its own lines and removed. With more than one solution or project file in the folder, dotnet
/// needs one named: the first solution, else the first project. NuGet's packages and the SDK's
/// folder in the home are writable.
pub(super) fn checks(dir: &Path) -> Vec<ProjectCheck> {
    let (solutions, projects) = (named(dir, ".sln"), named(dir, ".csproj"));
    let target = match (solutions.len() + projects.len(), solutions.first(), projects.first()) {
        (0, _, _) => return Vec::new(),
        (1, _, _) => String::new(),
        (_, Some(solution), _) => format!(" {}", quoted(solution)),
        (_, None, Some(project)) => format!(" {}", quoted(project)),
        (_, None, None) => String::new(),
    };
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = env("HOME");
    let caches: Vec<PathBuf> = env("NUGET_PACKAGES")
        .or_else(|| home.as_ref().map(|h| h.join(".nuget/packages")))
        .into_iter()
        .chain(home.as_ref().map(|h| h.join(".dotnet")))
        .chain(home.as_ref().map(|h| h.join(".local/share/NuGet")))
        .collect();
    vec![ProjectCheck {
        name: "dotnet test".into(),
        command: format!(
            "results=$(mktemp -d); dotnet test{target} --logger trx --results-directory \"$results\"; status=$?; \
             cat \"$results\"/*.trx 2>/dev/null; rm -rf \"$results\"; exit $status"
        ),
        format: "trx",
        caches,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_or_a_solution_declares_dotnet_test() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(checks(dir.path()), []);
        std::fs::write(dir.path().join("Calc.csproj"), "<Project Sdk=\"Microsoft.NET.Sdk\"/>").unwrap();
        let found = checks(dir.path());
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].name.as_str(), found[0].format), ("dotnet test", "trx"));
        assert!(
            found[0].command.contains("; dotnet test --logger trx --results-directory"),
            "{}",
            found[0].command
        );
        // A solution beside the project is the one named.
        std::fs::write(dir.path().join("Calc.sln"), "").unwrap();
        assert!(checks(dir.path())[0].command.contains("; dotnet test Calc.sln --logger trx"));
    }
}
