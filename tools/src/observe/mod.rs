//! What a call returns and how it is cut to fit: observations, caps with head and tail, the
//! handles of spilled text, lenient argument decoding, per-client limits, redaction.

pub(crate) mod lenient;
pub(crate) mod limits;
pub(crate) mod observation;
pub(crate) mod output_store;
pub(crate) mod redact;
pub(crate) mod shape;
