//! Commands: started in a contained process tree and killed with it (`run` and `verify`).

pub(crate) mod contain;
pub(crate) mod execute;
pub(crate) mod mounts;
pub(crate) mod seccomp;
pub(crate) mod view;
